// Internal: the opcode tables and the mnemonic → semantics link between decoder and executor.
#pragma once

#include <string_view>

#include "rawgpu/sim/rdna.h"

namespace rawgpu::sim::rdna {

// Semantics id of a mnemonic (LLVM's text, with _e32/_e64 and VOPD's v_dual_ normalised);
// 0 when the emulator has no semantics for it.
uint16_t semantics_of(std::string_view mnemonic);

// Table entry by (format, opcode), nullptr when LLVM 19 knows no such opcode.
const OpcodeInfo* lookup(Target t, Format f, uint32_t opcode);

}  // namespace rawgpu::sim::rdna
