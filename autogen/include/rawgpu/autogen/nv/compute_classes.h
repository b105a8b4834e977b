// NVIDIA compute-class methods for AMPERE_COMPUTE_A (0xc6c0), AMPERE_COMPUTE_B (0xc7c0),
// ADA_COMPUTE_A (0xc9c0) and HOPPER_COMPUTE_A (0xcbc0): the methods rawgpu's NV queues use
// (inline-to-memory, PCAS launch, inline QMD, shader local/shared memory windows, cache
// invalidation, report semaphores), with their fields and values.
//
// No Debian package ships these headers. This file is data WRITTEN BY HAND from NVIDIA's public
// documentation: open-gpu-doc (github.com/NVIDIA/open-gpu-doc) classes/compute/clc6c0.h,
// clc7c0.h, clc9c0.h, clcbc0.h at commit c8607fe5 ("NVC6C0_X 0xNNNN" method offsets, "hi:lo"
// fields, "_VALUE 0xN" values). Names keep the documentation's spelling so they can be
// grepped there. tests/autogen/nv_data_test.cpp checks its consistency (fields inside 32 bits,
// no overlaps, offsets shared across the four classes).
#pragma once

#include <cstdint>

#include "rawgpu/base/bits.h"

namespace rawgpu::autogen::nv {

struct ClassMethod {
  const char* name;  // without the NVxxC0_ prefix
  uint32_t offset;   // byte offset of the method (method address = offset / 4)
};
struct ClassField {
  const char* name;  // METHOD_FIELD, without the prefix
  uint32_t lo;
  uint32_t width;
};

// clc6c0 (AMPERE_COMPUTE_A). Written from NVIDIA open-gpu-doc classes/compute/clc6c0.h, commit
// c8607fe5.
namespace clc6c0 {
inline constexpr uint32_t AMPERE_COMPUTE_A = 0xc6c0;
inline constexpr uint32_t NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI = 0x1698;
inline constexpr BitField NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT{12, 1};  // 12:12
inline constexpr uint32_t NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT_TRUE = 0x1;
inline constexpr BitField NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA{4, 1};  // 4:4
inline constexpr uint32_t NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA_TRUE = 0x1;
inline constexpr BitField NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION{0, 1};  // 0:0
inline constexpr uint32_t NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION_TRUE = 0x1;
inline constexpr uint32_t NVC6C0_INVALIDATE_SKED_CACHES = 0x298;
inline constexpr BitField NVC6C0_INVALIDATE_SKED_CACHES_V{0, 1};  // 0:0
inline constexpr uint32_t NVC6C0_LAUNCH_DMA = 0x1b0;
inline constexpr BitField NVC6C0_LAUNCH_DMA_COMPLETION_TYPE{4, 2};  // 5:4
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_COMPLETION_TYPE_FLUSH_DISABLE = 0x0;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_COMPLETION_TYPE_FLUSH_ONLY = 0x1;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_COMPLETION_TYPE_RELEASE_SEMAPHORE = 0x2;
inline constexpr BitField NVC6C0_LAUNCH_DMA_DST_MEMORY_LAYOUT{0, 1};  // 0:0
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_DST_MEMORY_LAYOUT_BLOCKLINEAR = 0x0;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH = 0x1;
inline constexpr BitField NVC6C0_LAUNCH_DMA_INTERRUPT_TYPE{8, 2};  // 9:8
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_INTERRUPT_TYPE_INTERRUPT = 0x1;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_INTERRUPT_TYPE_NONE = 0x0;
inline constexpr BitField NVC6C0_LAUNCH_DMA_REDUCTION_ENABLE{1, 1};  // 1:1
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr BitField NVC6C0_LAUNCH_DMA_REDUCTION_FORMAT{2, 2};  // 3:2
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_FORMAT_SIGNED_32 = 0x1;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_FORMAT_UNSIGNED_32 = 0x0;
inline constexpr BitField NVC6C0_LAUNCH_DMA_REDUCTION_OP{13, 3};  // 15:13
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr BitField NVC6C0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE{12, 1};  // 12:12
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE_FOUR_WORDS = 0x0;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE_ONE_WORD = 0x1;
inline constexpr BitField NVC6C0_LAUNCH_DMA_SYSMEMBAR_DISABLE{6, 1};  // 6:6
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_SYSMEMBAR_DISABLE_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_LAUNCH_DMA_SYSMEMBAR_DISABLE_TRUE = 0x1;
inline constexpr uint32_t NVC6C0_LINE_COUNT = 0x184;
inline constexpr BitField NVC6C0_LINE_COUNT_VALUE{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_LINE_LENGTH_IN = 0x180;
inline constexpr BitField NVC6C0_LINE_LENGTH_IN_VALUE{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_LOAD_INLINE_DATA = 0x1b4;
inline constexpr BitField NVC6C0_LOAD_INLINE_DATA_V{0, 32};  // 31:0
constexpr uint32_t NVC6C0_LOAD_INLINE_QMD_DATA(uint32_t i) { return 0x320 + i * 4; }
inline constexpr BitField NVC6C0_LOAD_INLINE_QMD_DATA_V{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_NOTIFY = 0x10c;
inline constexpr BitField NVC6C0_NOTIFY_TYPE{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_NOTIFY_TYPE_WRITE_ONLY = 0x0;
inline constexpr uint32_t NVC6C0_NOTIFY_TYPE_WRITE_THEN_AWAKEN = 0x1;
inline constexpr uint32_t NVC6C0_NO_OPERATION = 0x100;
inline constexpr BitField NVC6C0_NO_OPERATION_V{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_OFFSET_OUT = 0x18c;
inline constexpr uint32_t NVC6C0_OFFSET_OUT_UPPER = 0x188;
inline constexpr BitField NVC6C0_OFFSET_OUT_UPPER_VALUE{0, 17};  // 16:0
inline constexpr BitField NVC6C0_OFFSET_OUT_VALUE{0, 32};        // 31:0
inline constexpr uint32_t NVC6C0_SEND_PCAS_A = 0x2b4;
inline constexpr BitField NVC6C0_SEND_PCAS_A_QMD_ADDRESS_SHIFTED8{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_SEND_PCAS_B = 0x2b8;
inline constexpr BitField NVC6C0_SEND_PCAS_B_DELTA{24, 8};  // 31:24
inline constexpr BitField NVC6C0_SEND_PCAS_B_FROM{0, 24};   // 23:0
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS2_B = 0x2c0;
inline constexpr BitField NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION{0, 4};  // 3:0
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_DECREMENT_DEPENDENCE = 0x7;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_PUT = 0x6;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE = 0x1;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t
    NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING =
        0xb;
inline constexpr uint32_t
    NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE = 0xa;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_NOP = 0x0;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH = 0x8;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE = 0x9;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_SCHEDULE = 0x2;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS_B = 0x2bc;
inline constexpr BitField NVC6C0_SEND_SIGNALING_PCAS_B_INVALIDATE{0, 1};  // 0:0
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS_B_INVALIDATE_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS_B_INVALIDATE_TRUE = 0x1;
inline constexpr BitField NVC6C0_SEND_SIGNALING_PCAS_B_SCHEDULE{1, 1};  // 1:1
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS_B_SCHEDULE_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_SEND_SIGNALING_PCAS_B_SCHEDULE_TRUE = 0x1;
inline constexpr uint32_t NVC6C0_SET_INLINE_QMD_ADDRESS_A = 0x318;
inline constexpr BitField NVC6C0_SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER{0,
                                                                                     32};  // 31:0
inline constexpr uint32_t NVC6C0_SET_INLINE_QMD_ADDRESS_B = 0x31c;
inline constexpr BitField NVC6C0_SET_INLINE_QMD_ADDRESS_B_QMD_ADDRESS_SHIFTED8_LOWER{0,
                                                                                     32};  // 31:0
inline constexpr uint32_t NVC6C0_SET_NOTIFY_A = 0x104;
inline constexpr BitField NVC6C0_SET_NOTIFY_A_ADDRESS_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVC6C0_SET_NOTIFY_B = 0x108;
inline constexpr BitField NVC6C0_SET_NOTIFY_B_ADDRESS_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_SET_OBJECT = 0x0;
inline constexpr BitField NVC6C0_SET_OBJECT_CLASS_ID{0, 16};   // 15:0
inline constexpr BitField NVC6C0_SET_OBJECT_ENGINE_ID{16, 5};  // 20:16
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_A = 0x1b00;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_A_OFFSET_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_B = 0x1b04;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_B_OFFSET_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_C = 0x1b08;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_C_PAYLOAD{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D = 0x1b0c;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE{20, 1};  // 20:20
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE_TRUE = 0x1;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP{19, 1};  // 19:19
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP_TRUE = 0x1;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE{2, 1};  // 2:2
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE_TRUE = 0x1;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_D_OPERATION{0, 2};  // 1:0
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_OPERATION_RELEASE = 0x0;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_OPERATION_TRAP = 0x3;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE{3, 1};  // 3:3
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT{17, 2};  // 18:17
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT_SIGNED_32 = 0x1;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT_UNSIGNED_32 = 0x0;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP{9, 3};  // 11:9
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr BitField NVC6C0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE{28, 1};  // 28:28
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE_FOUR_WORDS = 0x0;
inline constexpr uint32_t NVC6C0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE_ONE_WORD = 0x1;
inline constexpr uint32_t NVC6C0_SET_SHADER_LOCAL_MEMORY_A = 0x790;
inline constexpr BitField NVC6C0_SET_SHADER_LOCAL_MEMORY_A_ADDRESS_UPPER{0, 17};  // 16:0
inline constexpr uint32_t NVC6C0_SET_SHADER_LOCAL_MEMORY_B = 0x794;
inline constexpr BitField NVC6C0_SET_SHADER_LOCAL_MEMORY_B_ADDRESS_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A = 0x2e4;
inline constexpr BitField NVC6C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A_SIZE_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVC6C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B = 0x2e8;
inline constexpr BitField NVC6C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B_SIZE_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C = 0x2ec;
inline constexpr BitField NVC6C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SM_COUNT{0, 9};  // 8:0
inline constexpr uint32_t NVC6C0_SET_SHADER_LOCAL_MEMORY_WINDOW_A = 0x7b0;
inline constexpr BitField NVC6C0_SET_SHADER_LOCAL_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER{0,
                                                                                     17};  // 16:0
inline constexpr uint32_t NVC6C0_SET_SHADER_LOCAL_MEMORY_WINDOW_B = 0x7b4;
inline constexpr BitField NVC6C0_SET_SHADER_LOCAL_MEMORY_WINDOW_B_BASE_ADDRESS{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_SET_SHADER_SHARED_MEMORY_WINDOW_A = 0x2a0;
inline constexpr BitField NVC6C0_SET_SHADER_SHARED_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER{0,
                                                                                      17};  // 16:0
inline constexpr uint32_t NVC6C0_SET_SHADER_SHARED_MEMORY_WINDOW_B = 0x2a4;
inline constexpr BitField NVC6C0_SET_SHADER_SHARED_MEMORY_WINDOW_B_BASE_ADDRESS{0, 32};  // 31:0
inline constexpr uint32_t NVC6C0_WAIT_FOR_IDLE = 0x110;
inline constexpr BitField NVC6C0_WAIT_FOR_IDLE_V{0, 32};  // 31:0
// Tables for iteration (consistency tests, tools): methods (indexed ones at i = 0) and
// fields (a field belongs to the longest method name that prefixes it).
inline constexpr ClassMethod kMethods[] = {
    {"INVALIDATE_SHADER_CACHES_NO_WFI", 0x1698},
    {"INVALIDATE_SKED_CACHES", 0x298},
    {"LAUNCH_DMA", 0x1b0},
    {"LINE_COUNT", 0x184},
    {"LINE_LENGTH_IN", 0x180},
    {"LOAD_INLINE_DATA", 0x1b4},
    {"LOAD_INLINE_QMD_DATA", 0x320},
    {"NOTIFY", 0x10c},
    {"NO_OPERATION", 0x100},
    {"OFFSET_OUT", 0x18c},
    {"OFFSET_OUT_UPPER", 0x188},
    {"SEND_PCAS_A", 0x2b4},
    {"SEND_PCAS_B", 0x2b8},
    {"SEND_SIGNALING_PCAS2_B", 0x2c0},
    {"SEND_SIGNALING_PCAS_B", 0x2bc},
    {"SET_INLINE_QMD_ADDRESS_A", 0x318},
    {"SET_INLINE_QMD_ADDRESS_B", 0x31c},
    {"SET_NOTIFY_A", 0x104},
    {"SET_NOTIFY_B", 0x108},
    {"SET_OBJECT", 0x0},
    {"SET_REPORT_SEMAPHORE_A", 0x1b00},
    {"SET_REPORT_SEMAPHORE_B", 0x1b04},
    {"SET_REPORT_SEMAPHORE_C", 0x1b08},
    {"SET_REPORT_SEMAPHORE_D", 0x1b0c},
    {"SET_SHADER_LOCAL_MEMORY_A", 0x790},
    {"SET_SHADER_LOCAL_MEMORY_B", 0x794},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A", 0x2e4},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B", 0x2e8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C", 0x2ec},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_A", 0x7b0},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_B", 0x7b4},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_A", 0x2a0},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_B", 0x2a4},
    {"WAIT_FOR_IDLE", 0x110},
};
inline constexpr ClassField kFields[] = {
    {"INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT", 12, 1},
    {"INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA", 4, 1},
    {"INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION", 0, 1},
    {"INVALIDATE_SKED_CACHES_V", 0, 1},
    {"LAUNCH_DMA_COMPLETION_TYPE", 4, 2},
    {"LAUNCH_DMA_DST_MEMORY_LAYOUT", 0, 1},
    {"LAUNCH_DMA_INTERRUPT_TYPE", 8, 2},
    {"LAUNCH_DMA_REDUCTION_ENABLE", 1, 1},
    {"LAUNCH_DMA_REDUCTION_FORMAT", 2, 2},
    {"LAUNCH_DMA_REDUCTION_OP", 13, 3},
    {"LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE", 12, 1},
    {"LAUNCH_DMA_SYSMEMBAR_DISABLE", 6, 1},
    {"LINE_COUNT_VALUE", 0, 32},
    {"LINE_LENGTH_IN_VALUE", 0, 32},
    {"LOAD_INLINE_DATA_V", 0, 32},
    {"LOAD_INLINE_QMD_DATA_V", 0, 32},
    {"NOTIFY_TYPE", 0, 32},
    {"NO_OPERATION_V", 0, 32},
    {"OFFSET_OUT_UPPER_VALUE", 0, 17},
    {"OFFSET_OUT_VALUE", 0, 32},
    {"SEND_PCAS_A_QMD_ADDRESS_SHIFTED8", 0, 32},
    {"SEND_PCAS_B_DELTA", 24, 8},
    {"SEND_PCAS_B_FROM", 0, 24},
    {"SEND_SIGNALING_PCAS2_B_PCAS_ACTION", 0, 4},
    {"SEND_SIGNALING_PCAS_B_INVALIDATE", 0, 1},
    {"SEND_SIGNALING_PCAS_B_SCHEDULE", 1, 1},
    {"SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER", 0, 32},
    {"SET_INLINE_QMD_ADDRESS_B_QMD_ADDRESS_SHIFTED8_LOWER", 0, 32},
    {"SET_NOTIFY_A_ADDRESS_UPPER", 0, 8},
    {"SET_NOTIFY_B_ADDRESS_LOWER", 0, 32},
    {"SET_OBJECT_CLASS_ID", 0, 16},
    {"SET_OBJECT_ENGINE_ID", 16, 5},
    {"SET_REPORT_SEMAPHORE_A_OFFSET_UPPER", 0, 8},
    {"SET_REPORT_SEMAPHORE_B_OFFSET_LOWER", 0, 32},
    {"SET_REPORT_SEMAPHORE_C_PAYLOAD", 0, 32},
    {"SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE", 20, 1},
    {"SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP", 19, 1},
    {"SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE", 2, 1},
    {"SET_REPORT_SEMAPHORE_D_OPERATION", 0, 2},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE", 3, 1},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT", 17, 2},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_OP", 9, 3},
    {"SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE", 28, 1},
    {"SET_SHADER_LOCAL_MEMORY_A_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_LOCAL_MEMORY_B_ADDRESS_LOWER", 0, 32},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A_SIZE_UPPER", 0, 8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B_SIZE_LOWER", 0, 32},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SM_COUNT", 0, 9},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_B_BASE_ADDRESS", 0, 32},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_B_BASE_ADDRESS", 0, 32},
    {"WAIT_FOR_IDLE_V", 0, 32},
};
}  // namespace clc6c0

// clc7c0 (AMPERE_COMPUTE_B). Written from NVIDIA open-gpu-doc classes/compute/clc7c0.h, commit
// c8607fe5.
namespace clc7c0 {
inline constexpr uint32_t AMPERE_COMPUTE_B = 0xc7c0;
inline constexpr uint32_t NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI = 0x1698;
inline constexpr BitField NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT{12, 1};  // 12:12
inline constexpr uint32_t NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT_TRUE = 0x1;
inline constexpr BitField NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA{4, 1};  // 4:4
inline constexpr uint32_t NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA_TRUE = 0x1;
inline constexpr BitField NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION{0, 1};  // 0:0
inline constexpr uint32_t NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION_TRUE = 0x1;
inline constexpr uint32_t NVC7C0_INVALIDATE_SKED_CACHES = 0x298;
inline constexpr BitField NVC7C0_INVALIDATE_SKED_CACHES_V{0, 1};  // 0:0
inline constexpr uint32_t NVC7C0_LAUNCH_DMA = 0x1b0;
inline constexpr BitField NVC7C0_LAUNCH_DMA_COMPLETION_TYPE{4, 2};  // 5:4
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_COMPLETION_TYPE_FLUSH_DISABLE = 0x0;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_COMPLETION_TYPE_FLUSH_ONLY = 0x1;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_COMPLETION_TYPE_RELEASE_SEMAPHORE = 0x2;
inline constexpr BitField NVC7C0_LAUNCH_DMA_DST_MEMORY_LAYOUT{0, 1};  // 0:0
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_DST_MEMORY_LAYOUT_BLOCKLINEAR = 0x0;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH = 0x1;
inline constexpr BitField NVC7C0_LAUNCH_DMA_INTERRUPT_TYPE{8, 2};  // 9:8
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_INTERRUPT_TYPE_INTERRUPT = 0x1;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_INTERRUPT_TYPE_NONE = 0x0;
inline constexpr BitField NVC7C0_LAUNCH_DMA_REDUCTION_ENABLE{1, 1};  // 1:1
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr BitField NVC7C0_LAUNCH_DMA_REDUCTION_FORMAT{2, 2};  // 3:2
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_FORMAT_SIGNED_32 = 0x1;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_FORMAT_UNSIGNED_32 = 0x0;
inline constexpr BitField NVC7C0_LAUNCH_DMA_REDUCTION_OP{13, 3};  // 15:13
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr BitField NVC7C0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE{12, 1};  // 12:12
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE_FOUR_WORDS = 0x0;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE_ONE_WORD = 0x1;
inline constexpr BitField NVC7C0_LAUNCH_DMA_SYSMEMBAR_DISABLE{6, 1};  // 6:6
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_SYSMEMBAR_DISABLE_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_LAUNCH_DMA_SYSMEMBAR_DISABLE_TRUE = 0x1;
inline constexpr uint32_t NVC7C0_LINE_COUNT = 0x184;
inline constexpr BitField NVC7C0_LINE_COUNT_VALUE{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_LINE_LENGTH_IN = 0x180;
inline constexpr BitField NVC7C0_LINE_LENGTH_IN_VALUE{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_LOAD_INLINE_DATA = 0x1b4;
inline constexpr BitField NVC7C0_LOAD_INLINE_DATA_V{0, 32};  // 31:0
constexpr uint32_t NVC7C0_LOAD_INLINE_QMD_DATA(uint32_t i) { return 0x320 + i * 4; }
inline constexpr BitField NVC7C0_LOAD_INLINE_QMD_DATA_V{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_NOTIFY = 0x10c;
inline constexpr BitField NVC7C0_NOTIFY_TYPE{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_NOTIFY_TYPE_WRITE_ONLY = 0x0;
inline constexpr uint32_t NVC7C0_NOTIFY_TYPE_WRITE_THEN_AWAKEN = 0x1;
inline constexpr uint32_t NVC7C0_NO_OPERATION = 0x100;
inline constexpr BitField NVC7C0_NO_OPERATION_V{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_OFFSET_OUT = 0x18c;
inline constexpr uint32_t NVC7C0_OFFSET_OUT_UPPER = 0x188;
inline constexpr BitField NVC7C0_OFFSET_OUT_UPPER_VALUE{0, 17};  // 16:0
inline constexpr BitField NVC7C0_OFFSET_OUT_VALUE{0, 32};        // 31:0
inline constexpr uint32_t NVC7C0_SEND_PCAS_A = 0x2b4;
inline constexpr BitField NVC7C0_SEND_PCAS_A_QMD_ADDRESS_SHIFTED8{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_SEND_PCAS_B = 0x2b8;
inline constexpr BitField NVC7C0_SEND_PCAS_B_DELTA{24, 8};  // 31:24
inline constexpr BitField NVC7C0_SEND_PCAS_B_FROM{0, 24};   // 23:0
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B = 0x2c0;
inline constexpr BitField NVC7C0_SEND_SIGNALING_PCAS2_B_OFFSET_MINUS_ONE{14, 10};  // 23:14
inline constexpr BitField NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION{0, 4};         // 3:0
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_DECREMENT_DEPENDENCE = 0x7;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_CWD_REF_COUNTER = 0xd;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_DEPENDENCE = 0xc;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_PUT = 0x6;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE = 0x1;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t
    NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING =
        0xb;
inline constexpr uint32_t
    NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE = 0xa;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_NOP = 0x0;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH = 0x8;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE = 0x9;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_SCHEDULE = 0x2;
inline constexpr BitField NVC7C0_SEND_SIGNALING_PCAS2_B_SELECT{8, 6};  // 13:8
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS_B = 0x2bc;
inline constexpr BitField NVC7C0_SEND_SIGNALING_PCAS_B_INVALIDATE{0, 1};  // 0:0
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS_B_INVALIDATE_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS_B_INVALIDATE_TRUE = 0x1;
inline constexpr BitField NVC7C0_SEND_SIGNALING_PCAS_B_SCHEDULE{1, 1};  // 1:1
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS_B_SCHEDULE_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_SEND_SIGNALING_PCAS_B_SCHEDULE_TRUE = 0x1;
inline constexpr uint32_t NVC7C0_SET_INLINE_QMD_ADDRESS_A = 0x318;
inline constexpr BitField NVC7C0_SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER{0,
                                                                                     32};  // 31:0
inline constexpr uint32_t NVC7C0_SET_INLINE_QMD_ADDRESS_B = 0x31c;
inline constexpr BitField NVC7C0_SET_INLINE_QMD_ADDRESS_B_QMD_ADDRESS_SHIFTED8_LOWER{0,
                                                                                     32};  // 31:0
inline constexpr uint32_t NVC7C0_SET_NOTIFY_A = 0x104;
inline constexpr BitField NVC7C0_SET_NOTIFY_A_ADDRESS_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVC7C0_SET_NOTIFY_B = 0x108;
inline constexpr BitField NVC7C0_SET_NOTIFY_B_ADDRESS_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_SET_OBJECT = 0x0;
inline constexpr BitField NVC7C0_SET_OBJECT_CLASS_ID{0, 16};   // 15:0
inline constexpr BitField NVC7C0_SET_OBJECT_ENGINE_ID{16, 5};  // 20:16
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_A = 0x1b00;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_A_OFFSET_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_B = 0x1b04;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_B_OFFSET_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_C = 0x1b08;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_C_PAYLOAD{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D = 0x1b0c;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE{20, 1};  // 20:20
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE_TRUE = 0x1;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP{19, 1};  // 19:19
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP_TRUE = 0x1;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE{2, 1};  // 2:2
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE_TRUE = 0x1;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_D_OPERATION{0, 2};  // 1:0
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_OPERATION_RELEASE = 0x0;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_OPERATION_TRAP = 0x3;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE{3, 1};  // 3:3
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT{17, 2};  // 18:17
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT_SIGNED_32 = 0x1;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT_UNSIGNED_32 = 0x0;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP{9, 3};  // 11:9
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr BitField NVC7C0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE{28, 1};  // 28:28
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE_FOUR_WORDS = 0x0;
inline constexpr uint32_t NVC7C0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE_ONE_WORD = 0x1;
inline constexpr uint32_t NVC7C0_SET_SHADER_LOCAL_MEMORY_A = 0x790;
inline constexpr BitField NVC7C0_SET_SHADER_LOCAL_MEMORY_A_ADDRESS_UPPER{0, 17};  // 16:0
inline constexpr uint32_t NVC7C0_SET_SHADER_LOCAL_MEMORY_B = 0x794;
inline constexpr BitField NVC7C0_SET_SHADER_LOCAL_MEMORY_B_ADDRESS_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A = 0x2e4;
inline constexpr BitField NVC7C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A_SIZE_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVC7C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B = 0x2e8;
inline constexpr BitField NVC7C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B_SIZE_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C = 0x2ec;
inline constexpr BitField NVC7C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SM_COUNT{0, 9};  // 8:0
inline constexpr uint32_t NVC7C0_SET_SHADER_LOCAL_MEMORY_WINDOW_A = 0x7b0;
inline constexpr BitField NVC7C0_SET_SHADER_LOCAL_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER{0,
                                                                                     17};  // 16:0
inline constexpr uint32_t NVC7C0_SET_SHADER_LOCAL_MEMORY_WINDOW_B = 0x7b4;
inline constexpr BitField NVC7C0_SET_SHADER_LOCAL_MEMORY_WINDOW_B_BASE_ADDRESS{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_SET_SHADER_SHARED_MEMORY_WINDOW_A = 0x2a0;
inline constexpr BitField NVC7C0_SET_SHADER_SHARED_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER{0,
                                                                                      17};  // 16:0
inline constexpr uint32_t NVC7C0_SET_SHADER_SHARED_MEMORY_WINDOW_B = 0x2a4;
inline constexpr BitField NVC7C0_SET_SHADER_SHARED_MEMORY_WINDOW_B_BASE_ADDRESS{0, 32};  // 31:0
inline constexpr uint32_t NVC7C0_WAIT_FOR_IDLE = 0x110;
inline constexpr BitField NVC7C0_WAIT_FOR_IDLE_V{0, 32};  // 31:0
// Tables for iteration (consistency tests, tools): methods (indexed ones at i = 0) and
// fields (a field belongs to the longest method name that prefixes it).
inline constexpr ClassMethod kMethods[] = {
    {"INVALIDATE_SHADER_CACHES_NO_WFI", 0x1698},
    {"INVALIDATE_SKED_CACHES", 0x298},
    {"LAUNCH_DMA", 0x1b0},
    {"LINE_COUNT", 0x184},
    {"LINE_LENGTH_IN", 0x180},
    {"LOAD_INLINE_DATA", 0x1b4},
    {"LOAD_INLINE_QMD_DATA", 0x320},
    {"NOTIFY", 0x10c},
    {"NO_OPERATION", 0x100},
    {"OFFSET_OUT", 0x18c},
    {"OFFSET_OUT_UPPER", 0x188},
    {"SEND_PCAS_A", 0x2b4},
    {"SEND_PCAS_B", 0x2b8},
    {"SEND_SIGNALING_PCAS2_B", 0x2c0},
    {"SEND_SIGNALING_PCAS_B", 0x2bc},
    {"SET_INLINE_QMD_ADDRESS_A", 0x318},
    {"SET_INLINE_QMD_ADDRESS_B", 0x31c},
    {"SET_NOTIFY_A", 0x104},
    {"SET_NOTIFY_B", 0x108},
    {"SET_OBJECT", 0x0},
    {"SET_REPORT_SEMAPHORE_A", 0x1b00},
    {"SET_REPORT_SEMAPHORE_B", 0x1b04},
    {"SET_REPORT_SEMAPHORE_C", 0x1b08},
    {"SET_REPORT_SEMAPHORE_D", 0x1b0c},
    {"SET_SHADER_LOCAL_MEMORY_A", 0x790},
    {"SET_SHADER_LOCAL_MEMORY_B", 0x794},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A", 0x2e4},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B", 0x2e8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C", 0x2ec},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_A", 0x7b0},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_B", 0x7b4},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_A", 0x2a0},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_B", 0x2a4},
    {"WAIT_FOR_IDLE", 0x110},
};
inline constexpr ClassField kFields[] = {
    {"INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT", 12, 1},
    {"INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA", 4, 1},
    {"INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION", 0, 1},
    {"INVALIDATE_SKED_CACHES_V", 0, 1},
    {"LAUNCH_DMA_COMPLETION_TYPE", 4, 2},
    {"LAUNCH_DMA_DST_MEMORY_LAYOUT", 0, 1},
    {"LAUNCH_DMA_INTERRUPT_TYPE", 8, 2},
    {"LAUNCH_DMA_REDUCTION_ENABLE", 1, 1},
    {"LAUNCH_DMA_REDUCTION_FORMAT", 2, 2},
    {"LAUNCH_DMA_REDUCTION_OP", 13, 3},
    {"LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE", 12, 1},
    {"LAUNCH_DMA_SYSMEMBAR_DISABLE", 6, 1},
    {"LINE_COUNT_VALUE", 0, 32},
    {"LINE_LENGTH_IN_VALUE", 0, 32},
    {"LOAD_INLINE_DATA_V", 0, 32},
    {"LOAD_INLINE_QMD_DATA_V", 0, 32},
    {"NOTIFY_TYPE", 0, 32},
    {"NO_OPERATION_V", 0, 32},
    {"OFFSET_OUT_UPPER_VALUE", 0, 17},
    {"OFFSET_OUT_VALUE", 0, 32},
    {"SEND_PCAS_A_QMD_ADDRESS_SHIFTED8", 0, 32},
    {"SEND_PCAS_B_DELTA", 24, 8},
    {"SEND_PCAS_B_FROM", 0, 24},
    {"SEND_SIGNALING_PCAS2_B_OFFSET_MINUS_ONE", 14, 10},
    {"SEND_SIGNALING_PCAS2_B_PCAS_ACTION", 0, 4},
    {"SEND_SIGNALING_PCAS2_B_SELECT", 8, 6},
    {"SEND_SIGNALING_PCAS_B_INVALIDATE", 0, 1},
    {"SEND_SIGNALING_PCAS_B_SCHEDULE", 1, 1},
    {"SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER", 0, 32},
    {"SET_INLINE_QMD_ADDRESS_B_QMD_ADDRESS_SHIFTED8_LOWER", 0, 32},
    {"SET_NOTIFY_A_ADDRESS_UPPER", 0, 8},
    {"SET_NOTIFY_B_ADDRESS_LOWER", 0, 32},
    {"SET_OBJECT_CLASS_ID", 0, 16},
    {"SET_OBJECT_ENGINE_ID", 16, 5},
    {"SET_REPORT_SEMAPHORE_A_OFFSET_UPPER", 0, 8},
    {"SET_REPORT_SEMAPHORE_B_OFFSET_LOWER", 0, 32},
    {"SET_REPORT_SEMAPHORE_C_PAYLOAD", 0, 32},
    {"SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE", 20, 1},
    {"SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP", 19, 1},
    {"SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE", 2, 1},
    {"SET_REPORT_SEMAPHORE_D_OPERATION", 0, 2},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE", 3, 1},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT", 17, 2},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_OP", 9, 3},
    {"SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE", 28, 1},
    {"SET_SHADER_LOCAL_MEMORY_A_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_LOCAL_MEMORY_B_ADDRESS_LOWER", 0, 32},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A_SIZE_UPPER", 0, 8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B_SIZE_LOWER", 0, 32},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SM_COUNT", 0, 9},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_B_BASE_ADDRESS", 0, 32},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_B_BASE_ADDRESS", 0, 32},
    {"WAIT_FOR_IDLE_V", 0, 32},
};
}  // namespace clc7c0

// clc9c0 (ADA_COMPUTE_A). Written from NVIDIA open-gpu-doc classes/compute/clc9c0.h, commit
// c8607fe5.
namespace clc9c0 {
inline constexpr uint32_t ADA_COMPUTE_A = 0xc9c0;
inline constexpr uint32_t NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI = 0x1698;
inline constexpr BitField NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT{12, 1};  // 12:12
inline constexpr uint32_t NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT_TRUE = 0x1;
inline constexpr BitField NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA{4, 1};  // 4:4
inline constexpr uint32_t NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA_TRUE = 0x1;
inline constexpr BitField NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION{0, 1};  // 0:0
inline constexpr uint32_t NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION_TRUE = 0x1;
inline constexpr uint32_t NVC9C0_INVALIDATE_SKED_CACHES = 0x298;
inline constexpr BitField NVC9C0_INVALIDATE_SKED_CACHES_V{0, 1};  // 0:0
inline constexpr uint32_t NVC9C0_LAUNCH_DMA = 0x1b0;
inline constexpr BitField NVC9C0_LAUNCH_DMA_COMPLETION_TYPE{4, 2};  // 5:4
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_COMPLETION_TYPE_FLUSH_DISABLE = 0x0;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_COMPLETION_TYPE_FLUSH_ONLY = 0x1;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_COMPLETION_TYPE_RELEASE_SEMAPHORE = 0x2;
inline constexpr BitField NVC9C0_LAUNCH_DMA_DST_MEMORY_LAYOUT{0, 1};  // 0:0
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_DST_MEMORY_LAYOUT_BLOCKLINEAR = 0x0;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH = 0x1;
inline constexpr BitField NVC9C0_LAUNCH_DMA_INTERRUPT_TYPE{8, 2};  // 9:8
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_INTERRUPT_TYPE_INTERRUPT = 0x1;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_INTERRUPT_TYPE_NONE = 0x0;
inline constexpr BitField NVC9C0_LAUNCH_DMA_REDUCTION_ENABLE{1, 1};  // 1:1
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr BitField NVC9C0_LAUNCH_DMA_REDUCTION_FORMAT{2, 2};  // 3:2
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_FORMAT_SIGNED_32 = 0x1;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_FORMAT_UNSIGNED_32 = 0x0;
inline constexpr BitField NVC9C0_LAUNCH_DMA_REDUCTION_OP{13, 3};  // 15:13
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr BitField NVC9C0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE{12, 1};  // 12:12
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE_FOUR_WORDS = 0x0;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE_ONE_WORD = 0x1;
inline constexpr BitField NVC9C0_LAUNCH_DMA_SYSMEMBAR_DISABLE{6, 1};  // 6:6
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_SYSMEMBAR_DISABLE_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_LAUNCH_DMA_SYSMEMBAR_DISABLE_TRUE = 0x1;
inline constexpr uint32_t NVC9C0_LINE_COUNT = 0x184;
inline constexpr BitField NVC9C0_LINE_COUNT_VALUE{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_LINE_LENGTH_IN = 0x180;
inline constexpr BitField NVC9C0_LINE_LENGTH_IN_VALUE{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_LOAD_INLINE_DATA = 0x1b4;
inline constexpr BitField NVC9C0_LOAD_INLINE_DATA_V{0, 32};  // 31:0
constexpr uint32_t NVC9C0_LOAD_INLINE_QMD_DATA(uint32_t i) { return 0x320 + i * 4; }
inline constexpr BitField NVC9C0_LOAD_INLINE_QMD_DATA_V{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_NOTIFY = 0x10c;
inline constexpr BitField NVC9C0_NOTIFY_TYPE{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_NOTIFY_TYPE_WRITE_ONLY = 0x0;
inline constexpr uint32_t NVC9C0_NOTIFY_TYPE_WRITE_THEN_AWAKEN = 0x1;
inline constexpr uint32_t NVC9C0_NO_OPERATION = 0x100;
inline constexpr BitField NVC9C0_NO_OPERATION_V{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_OFFSET_OUT = 0x18c;
inline constexpr uint32_t NVC9C0_OFFSET_OUT_UPPER = 0x188;
inline constexpr BitField NVC9C0_OFFSET_OUT_UPPER_VALUE{0, 17};  // 16:0
inline constexpr BitField NVC9C0_OFFSET_OUT_VALUE{0, 32};        // 31:0
inline constexpr uint32_t NVC9C0_SEND_PCAS_A = 0x2b4;
inline constexpr BitField NVC9C0_SEND_PCAS_A_QMD_ADDRESS_SHIFTED8{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_SEND_PCAS_B = 0x2b8;
inline constexpr BitField NVC9C0_SEND_PCAS_B_DELTA{24, 8};  // 31:24
inline constexpr BitField NVC9C0_SEND_PCAS_B_FROM{0, 24};   // 23:0
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B = 0x2c0;
inline constexpr BitField NVC9C0_SEND_SIGNALING_PCAS2_B_OFFSET_MINUS_ONE{14, 10};  // 23:14
inline constexpr BitField NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION{0, 4};         // 3:0
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_DECREMENT_DEPENDENCE = 0x7;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_CWD_REF_COUNTER = 0xd;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_DEPENDENCE = 0xc;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_PUT = 0x6;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE = 0x1;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t
    NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING =
        0xb;
inline constexpr uint32_t
    NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE = 0xa;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_NOP = 0x0;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH = 0x8;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE = 0x9;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_SCHEDULE = 0x2;
inline constexpr BitField NVC9C0_SEND_SIGNALING_PCAS2_B_SELECT{8, 6};  // 13:8
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS_B = 0x2bc;
inline constexpr BitField NVC9C0_SEND_SIGNALING_PCAS_B_INVALIDATE{0, 1};  // 0:0
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS_B_INVALIDATE_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS_B_INVALIDATE_TRUE = 0x1;
inline constexpr BitField NVC9C0_SEND_SIGNALING_PCAS_B_SCHEDULE{1, 1};  // 1:1
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS_B_SCHEDULE_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_SEND_SIGNALING_PCAS_B_SCHEDULE_TRUE = 0x1;
inline constexpr uint32_t NVC9C0_SET_INLINE_QMD_ADDRESS_A = 0x318;
inline constexpr BitField NVC9C0_SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER{0,
                                                                                     32};  // 31:0
inline constexpr uint32_t NVC9C0_SET_INLINE_QMD_ADDRESS_B = 0x31c;
inline constexpr BitField NVC9C0_SET_INLINE_QMD_ADDRESS_B_QMD_ADDRESS_SHIFTED8_LOWER{0,
                                                                                     32};  // 31:0
inline constexpr uint32_t NVC9C0_SET_NOTIFY_A = 0x104;
inline constexpr BitField NVC9C0_SET_NOTIFY_A_ADDRESS_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVC9C0_SET_NOTIFY_B = 0x108;
inline constexpr BitField NVC9C0_SET_NOTIFY_B_ADDRESS_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_SET_OBJECT = 0x0;
inline constexpr BitField NVC9C0_SET_OBJECT_CLASS_ID{0, 16};   // 15:0
inline constexpr BitField NVC9C0_SET_OBJECT_ENGINE_ID{16, 5};  // 20:16
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_A = 0x1b00;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_A_OFFSET_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_B = 0x1b04;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_B_OFFSET_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_C = 0x1b08;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_C_PAYLOAD{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D = 0x1b0c;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE{20, 1};  // 20:20
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE_TRUE = 0x1;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP{19, 1};  // 19:19
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP_TRUE = 0x1;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE{2, 1};  // 2:2
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE_TRUE = 0x1;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_D_OPERATION{0, 2};  // 1:0
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_OPERATION_RELEASE = 0x0;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_OPERATION_TRAP = 0x3;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE{3, 1};  // 3:3
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT{17, 2};  // 18:17
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT_SIGNED_32 = 0x1;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT_UNSIGNED_32 = 0x0;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP{9, 3};  // 11:9
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr BitField NVC9C0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE{28, 1};  // 28:28
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE_FOUR_WORDS = 0x0;
inline constexpr uint32_t NVC9C0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE_ONE_WORD = 0x1;
inline constexpr uint32_t NVC9C0_SET_SHADER_LOCAL_MEMORY_A = 0x790;
inline constexpr BitField NVC9C0_SET_SHADER_LOCAL_MEMORY_A_ADDRESS_UPPER{0, 17};  // 16:0
inline constexpr uint32_t NVC9C0_SET_SHADER_LOCAL_MEMORY_B = 0x794;
inline constexpr BitField NVC9C0_SET_SHADER_LOCAL_MEMORY_B_ADDRESS_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A = 0x2e4;
inline constexpr BitField NVC9C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A_SIZE_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVC9C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B = 0x2e8;
inline constexpr BitField NVC9C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B_SIZE_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C = 0x2ec;
inline constexpr BitField NVC9C0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SM_COUNT{0, 9};  // 8:0
inline constexpr uint32_t NVC9C0_SET_SHADER_LOCAL_MEMORY_WINDOW_A = 0x7b0;
inline constexpr BitField NVC9C0_SET_SHADER_LOCAL_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER{0,
                                                                                     17};  // 16:0
inline constexpr uint32_t NVC9C0_SET_SHADER_LOCAL_MEMORY_WINDOW_B = 0x7b4;
inline constexpr BitField NVC9C0_SET_SHADER_LOCAL_MEMORY_WINDOW_B_BASE_ADDRESS{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_SET_SHADER_SHARED_MEMORY_WINDOW_A = 0x2a0;
inline constexpr BitField NVC9C0_SET_SHADER_SHARED_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER{0,
                                                                                      17};  // 16:0
inline constexpr uint32_t NVC9C0_SET_SHADER_SHARED_MEMORY_WINDOW_B = 0x2a4;
inline constexpr BitField NVC9C0_SET_SHADER_SHARED_MEMORY_WINDOW_B_BASE_ADDRESS{0, 32};  // 31:0
inline constexpr uint32_t NVC9C0_WAIT_FOR_IDLE = 0x110;
inline constexpr BitField NVC9C0_WAIT_FOR_IDLE_V{0, 32};  // 31:0
// Tables for iteration (consistency tests, tools): methods (indexed ones at i = 0) and
// fields (a field belongs to the longest method name that prefixes it).
inline constexpr ClassMethod kMethods[] = {
    {"INVALIDATE_SHADER_CACHES_NO_WFI", 0x1698},
    {"INVALIDATE_SKED_CACHES", 0x298},
    {"LAUNCH_DMA", 0x1b0},
    {"LINE_COUNT", 0x184},
    {"LINE_LENGTH_IN", 0x180},
    {"LOAD_INLINE_DATA", 0x1b4},
    {"LOAD_INLINE_QMD_DATA", 0x320},
    {"NOTIFY", 0x10c},
    {"NO_OPERATION", 0x100},
    {"OFFSET_OUT", 0x18c},
    {"OFFSET_OUT_UPPER", 0x188},
    {"SEND_PCAS_A", 0x2b4},
    {"SEND_PCAS_B", 0x2b8},
    {"SEND_SIGNALING_PCAS2_B", 0x2c0},
    {"SEND_SIGNALING_PCAS_B", 0x2bc},
    {"SET_INLINE_QMD_ADDRESS_A", 0x318},
    {"SET_INLINE_QMD_ADDRESS_B", 0x31c},
    {"SET_NOTIFY_A", 0x104},
    {"SET_NOTIFY_B", 0x108},
    {"SET_OBJECT", 0x0},
    {"SET_REPORT_SEMAPHORE_A", 0x1b00},
    {"SET_REPORT_SEMAPHORE_B", 0x1b04},
    {"SET_REPORT_SEMAPHORE_C", 0x1b08},
    {"SET_REPORT_SEMAPHORE_D", 0x1b0c},
    {"SET_SHADER_LOCAL_MEMORY_A", 0x790},
    {"SET_SHADER_LOCAL_MEMORY_B", 0x794},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A", 0x2e4},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B", 0x2e8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C", 0x2ec},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_A", 0x7b0},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_B", 0x7b4},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_A", 0x2a0},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_B", 0x2a4},
    {"WAIT_FOR_IDLE", 0x110},
};
inline constexpr ClassField kFields[] = {
    {"INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT", 12, 1},
    {"INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA", 4, 1},
    {"INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION", 0, 1},
    {"INVALIDATE_SKED_CACHES_V", 0, 1},
    {"LAUNCH_DMA_COMPLETION_TYPE", 4, 2},
    {"LAUNCH_DMA_DST_MEMORY_LAYOUT", 0, 1},
    {"LAUNCH_DMA_INTERRUPT_TYPE", 8, 2},
    {"LAUNCH_DMA_REDUCTION_ENABLE", 1, 1},
    {"LAUNCH_DMA_REDUCTION_FORMAT", 2, 2},
    {"LAUNCH_DMA_REDUCTION_OP", 13, 3},
    {"LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE", 12, 1},
    {"LAUNCH_DMA_SYSMEMBAR_DISABLE", 6, 1},
    {"LINE_COUNT_VALUE", 0, 32},
    {"LINE_LENGTH_IN_VALUE", 0, 32},
    {"LOAD_INLINE_DATA_V", 0, 32},
    {"LOAD_INLINE_QMD_DATA_V", 0, 32},
    {"NOTIFY_TYPE", 0, 32},
    {"NO_OPERATION_V", 0, 32},
    {"OFFSET_OUT_UPPER_VALUE", 0, 17},
    {"OFFSET_OUT_VALUE", 0, 32},
    {"SEND_PCAS_A_QMD_ADDRESS_SHIFTED8", 0, 32},
    {"SEND_PCAS_B_DELTA", 24, 8},
    {"SEND_PCAS_B_FROM", 0, 24},
    {"SEND_SIGNALING_PCAS2_B_OFFSET_MINUS_ONE", 14, 10},
    {"SEND_SIGNALING_PCAS2_B_PCAS_ACTION", 0, 4},
    {"SEND_SIGNALING_PCAS2_B_SELECT", 8, 6},
    {"SEND_SIGNALING_PCAS_B_INVALIDATE", 0, 1},
    {"SEND_SIGNALING_PCAS_B_SCHEDULE", 1, 1},
    {"SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER", 0, 32},
    {"SET_INLINE_QMD_ADDRESS_B_QMD_ADDRESS_SHIFTED8_LOWER", 0, 32},
    {"SET_NOTIFY_A_ADDRESS_UPPER", 0, 8},
    {"SET_NOTIFY_B_ADDRESS_LOWER", 0, 32},
    {"SET_OBJECT_CLASS_ID", 0, 16},
    {"SET_OBJECT_ENGINE_ID", 16, 5},
    {"SET_REPORT_SEMAPHORE_A_OFFSET_UPPER", 0, 8},
    {"SET_REPORT_SEMAPHORE_B_OFFSET_LOWER", 0, 32},
    {"SET_REPORT_SEMAPHORE_C_PAYLOAD", 0, 32},
    {"SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE", 20, 1},
    {"SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP", 19, 1},
    {"SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE", 2, 1},
    {"SET_REPORT_SEMAPHORE_D_OPERATION", 0, 2},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE", 3, 1},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT", 17, 2},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_OP", 9, 3},
    {"SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE", 28, 1},
    {"SET_SHADER_LOCAL_MEMORY_A_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_LOCAL_MEMORY_B_ADDRESS_LOWER", 0, 32},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A_SIZE_UPPER", 0, 8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B_SIZE_LOWER", 0, 32},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SM_COUNT", 0, 9},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_B_BASE_ADDRESS", 0, 32},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_B_BASE_ADDRESS", 0, 32},
    {"WAIT_FOR_IDLE_V", 0, 32},
};
}  // namespace clc9c0

// clcbc0 (HOPPER_COMPUTE_A). Written from NVIDIA open-gpu-doc classes/compute/clcbc0.h, commit
// c8607fe5.
namespace clcbc0 {
inline constexpr uint32_t HOPPER_COMPUTE_A = 0xcbc0;
inline constexpr uint32_t NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI = 0x1698;
inline constexpr BitField NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT{12, 1};  // 12:12
inline constexpr uint32_t NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT_TRUE = 0x1;
inline constexpr BitField NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA{4, 1};  // 4:4
inline constexpr uint32_t NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA_TRUE = 0x1;
inline constexpr BitField NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION{0, 1};  // 0:0
inline constexpr uint32_t NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION_TRUE = 0x1;
inline constexpr uint32_t NVCBC0_INVALIDATE_SKED_CACHES = 0x298;
inline constexpr BitField NVCBC0_INVALIDATE_SKED_CACHES_V{0, 1};  // 0:0
inline constexpr uint32_t NVCBC0_LAUNCH_DMA = 0x1b0;
inline constexpr BitField NVCBC0_LAUNCH_DMA_COMPLETION_TYPE{4, 2};  // 5:4
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_COMPLETION_TYPE_FLUSH_DISABLE = 0x0;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_COMPLETION_TYPE_FLUSH_ONLY = 0x1;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_COMPLETION_TYPE_RELEASE_SEMAPHORE = 0x2;
inline constexpr BitField NVCBC0_LAUNCH_DMA_DST_MEMORY_LAYOUT{0, 1};  // 0:0
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_DST_MEMORY_LAYOUT_BLOCKLINEAR = 0x0;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH = 0x1;
inline constexpr BitField NVCBC0_LAUNCH_DMA_INTERRUPT_TYPE{8, 2};  // 9:8
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_INTERRUPT_TYPE_INTERRUPT = 0x1;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_INTERRUPT_TYPE_NONE = 0x0;
inline constexpr BitField NVCBC0_LAUNCH_DMA_REDUCTION_ENABLE{1, 1};  // 1:1
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr BitField NVCBC0_LAUNCH_DMA_REDUCTION_FORMAT{2, 2};  // 3:2
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_FORMAT_SIGNED_32 = 0x1;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_FORMAT_UNSIGNED_32 = 0x0;
inline constexpr BitField NVCBC0_LAUNCH_DMA_REDUCTION_OP{13, 3};  // 15:13
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr BitField NVCBC0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE{12, 1};  // 12:12
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE_FOUR_WORDS = 0x0;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE_ONE_WORD = 0x1;
inline constexpr BitField NVCBC0_LAUNCH_DMA_SYSMEMBAR_DISABLE{6, 1};  // 6:6
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_SYSMEMBAR_DISABLE_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_LAUNCH_DMA_SYSMEMBAR_DISABLE_TRUE = 0x1;
inline constexpr uint32_t NVCBC0_LINE_COUNT = 0x184;
inline constexpr BitField NVCBC0_LINE_COUNT_VALUE{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_LINE_LENGTH_IN = 0x180;
inline constexpr BitField NVCBC0_LINE_LENGTH_IN_VALUE{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_LOAD_INLINE_DATA = 0x1b4;
inline constexpr BitField NVCBC0_LOAD_INLINE_DATA_V{0, 32};  // 31:0
constexpr uint32_t NVCBC0_LOAD_INLINE_QMD_DATA(uint32_t i) { return 0x320 + i * 4; }
inline constexpr BitField NVCBC0_LOAD_INLINE_QMD_DATA_V{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_NOTIFY = 0x10c;
inline constexpr BitField NVCBC0_NOTIFY_TYPE{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_NOTIFY_TYPE_WRITE_ONLY = 0x0;
inline constexpr uint32_t NVCBC0_NOTIFY_TYPE_WRITE_THEN_AWAKEN = 0x1;
inline constexpr uint32_t NVCBC0_NO_OPERATION = 0x100;
inline constexpr BitField NVCBC0_NO_OPERATION_V{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_OFFSET_OUT = 0x18c;
inline constexpr uint32_t NVCBC0_OFFSET_OUT_UPPER = 0x188;
inline constexpr BitField NVCBC0_OFFSET_OUT_UPPER_VALUE{0, 25};  // 24:0
inline constexpr BitField NVCBC0_OFFSET_OUT_VALUE{0, 32};        // 31:0
inline constexpr uint32_t NVCBC0_SEND_PCAS_A = 0x2b4;
inline constexpr BitField NVCBC0_SEND_PCAS_A_QMD_ADDRESS_SHIFTED8{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_SEND_PCAS_B = 0x2b8;
inline constexpr BitField NVCBC0_SEND_PCAS_B_DELTA{24, 8};  // 31:24
inline constexpr BitField NVCBC0_SEND_PCAS_B_FROM{0, 24};   // 23:0
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B = 0x2c0;
inline constexpr BitField NVCBC0_SEND_SIGNALING_PCAS2_B_OFFSET_MINUS_ONE{14, 10};  // 23:14
inline constexpr BitField NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION{0, 4};         // 3:0
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_DECREMENT_DEPENDENCE = 0x7;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_CWD_REF_COUNTER = 0xd;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_DEPENDENCE = 0xc;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INCREMENT_PUT = 0x6;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE = 0x1;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_COPY_SCHEDULE = 0x3;
inline constexpr uint32_t
    NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING =
        0xb;
inline constexpr uint32_t
    NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE = 0xa;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_NOP = 0x0;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH = 0x8;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_PREFETCH_SCHEDULE = 0x9;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS2_B_PCAS_ACTION_SCHEDULE = 0x2;
inline constexpr BitField NVCBC0_SEND_SIGNALING_PCAS2_B_SELECT{8, 6};  // 13:8
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS_B = 0x2bc;
inline constexpr BitField NVCBC0_SEND_SIGNALING_PCAS_B_INVALIDATE{0, 1};  // 0:0
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS_B_INVALIDATE_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS_B_INVALIDATE_TRUE = 0x1;
inline constexpr BitField NVCBC0_SEND_SIGNALING_PCAS_B_SCHEDULE{1, 1};  // 1:1
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS_B_SCHEDULE_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_SEND_SIGNALING_PCAS_B_SCHEDULE_TRUE = 0x1;
inline constexpr uint32_t NVCBC0_SET_INLINE_QMD_ADDRESS_A = 0x318;
inline constexpr BitField NVCBC0_SET_INLINE_QMD_ADDRESS_A_INLINE_SIZE{30, 1};  // 30:30
inline constexpr uint32_t NVCBC0_SET_INLINE_QMD_ADDRESS_A_INLINE_SIZE_INLINE_256 = 0x0;
inline constexpr uint32_t NVCBC0_SET_INLINE_QMD_ADDRESS_A_INLINE_SIZE_INLINE_384 = 0x1;
inline constexpr BitField NVCBC0_SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER{0, 9};  // 8:0
inline constexpr uint32_t NVCBC0_SET_INLINE_QMD_ADDRESS_B = 0x31c;
inline constexpr BitField NVCBC0_SET_INLINE_QMD_ADDRESS_B_QMD_ADDRESS_SHIFTED8_LOWER{0,
                                                                                     32};  // 31:0
inline constexpr uint32_t NVCBC0_SET_NOTIFY_A = 0x104;
inline constexpr BitField NVCBC0_SET_NOTIFY_A_ADDRESS_UPPER{0, 25};  // 24:0
inline constexpr uint32_t NVCBC0_SET_NOTIFY_B = 0x108;
inline constexpr BitField NVCBC0_SET_NOTIFY_B_ADDRESS_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_SET_OBJECT = 0x0;
inline constexpr BitField NVCBC0_SET_OBJECT_CLASS_ID{0, 16};   // 15:0
inline constexpr BitField NVCBC0_SET_OBJECT_ENGINE_ID{16, 5};  // 20:16
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_A = 0x1b00;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_A_OFFSET_UPPER{0, 25};  // 24:0
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_B = 0x1b04;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_B_OFFSET_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_C = 0x1b08;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_C_PAYLOAD{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D = 0x1b0c;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE{20, 1};  // 20:20
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE_TRUE = 0x1;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP{19, 1};  // 19:19
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP_TRUE = 0x1;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE{2, 1};  // 2:2
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE_TRUE = 0x1;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_D_OPERATION{0, 2};  // 1:0
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_OPERATION_RELEASE = 0x0;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_OPERATION_TRAP = 0x3;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE{3, 1};  // 3:3
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE_FALSE = 0x0;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE_TRUE = 0x1;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT{17, 2};  // 18:17
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT_SIGNED_32 = 0x1;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT_UNSIGNED_32 = 0x0;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP{9, 3};  // 11:9
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_ADD = 0x0;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_AND = 0x5;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_DEC = 0x4;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_INC = 0x3;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_MAX = 0x2;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_MIN = 0x1;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_OR = 0x6;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_REDUCTION_OP_RED_XOR = 0x7;
inline constexpr BitField NVCBC0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE{28, 1};  // 28:28
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE_FOUR_WORDS = 0x0;
inline constexpr uint32_t NVCBC0_SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE_ONE_WORD = 0x1;
inline constexpr uint32_t NVCBC0_SET_SHADER_LOCAL_MEMORY_A = 0x790;
inline constexpr BitField NVCBC0_SET_SHADER_LOCAL_MEMORY_A_ADDRESS_UPPER{0, 25};  // 24:0
inline constexpr uint32_t NVCBC0_SET_SHADER_LOCAL_MEMORY_B = 0x794;
inline constexpr BitField NVCBC0_SET_SHADER_LOCAL_MEMORY_B_ADDRESS_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A = 0x2e4;
inline constexpr BitField NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A_SIZE_UPPER{0, 8};  // 7:0
inline constexpr uint32_t NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B = 0x2e8;
inline constexpr BitField NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B_SIZE_LOWER{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C = 0x2ec;
inline constexpr BitField NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_PLURAL_TPC_GPC_COUNT{
    16, 8};  // 23:16
inline constexpr BitField
    NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SINGLETON_TPC_GPC_COUNT{24, 8};  // 31:24
inline constexpr BitField NVCBC0_SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SM_COUNT{0, 9};  // 8:0
inline constexpr uint32_t NVCBC0_SET_SHADER_LOCAL_MEMORY_WINDOW_A = 0x7b0;
inline constexpr BitField NVCBC0_SET_SHADER_LOCAL_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER{0,
                                                                                     17};  // 16:0
inline constexpr uint32_t NVCBC0_SET_SHADER_LOCAL_MEMORY_WINDOW_B = 0x7b4;
inline constexpr BitField NVCBC0_SET_SHADER_LOCAL_MEMORY_WINDOW_B_BASE_ADDRESS{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_SET_SHADER_SHARED_MEMORY_WINDOW_A = 0x2a0;
inline constexpr BitField NVCBC0_SET_SHADER_SHARED_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER{0,
                                                                                      17};  // 16:0
inline constexpr uint32_t NVCBC0_SET_SHADER_SHARED_MEMORY_WINDOW_B = 0x2a4;
inline constexpr BitField NVCBC0_SET_SHADER_SHARED_MEMORY_WINDOW_B_BASE_ADDRESS{0, 32};  // 31:0
inline constexpr uint32_t NVCBC0_WAIT_FOR_IDLE = 0x110;
inline constexpr BitField NVCBC0_WAIT_FOR_IDLE_V{0, 32};  // 31:0
// Tables for iteration (consistency tests, tools): methods (indexed ones at i = 0) and
// fields (a field belongs to the longest method name that prefixes it).
inline constexpr ClassMethod kMethods[] = {
    {"INVALIDATE_SHADER_CACHES_NO_WFI", 0x1698},
    {"INVALIDATE_SKED_CACHES", 0x298},
    {"LAUNCH_DMA", 0x1b0},
    {"LINE_COUNT", 0x184},
    {"LINE_LENGTH_IN", 0x180},
    {"LOAD_INLINE_DATA", 0x1b4},
    {"LOAD_INLINE_QMD_DATA", 0x320},
    {"NOTIFY", 0x10c},
    {"NO_OPERATION", 0x100},
    {"OFFSET_OUT", 0x18c},
    {"OFFSET_OUT_UPPER", 0x188},
    {"SEND_PCAS_A", 0x2b4},
    {"SEND_PCAS_B", 0x2b8},
    {"SEND_SIGNALING_PCAS2_B", 0x2c0},
    {"SEND_SIGNALING_PCAS_B", 0x2bc},
    {"SET_INLINE_QMD_ADDRESS_A", 0x318},
    {"SET_INLINE_QMD_ADDRESS_B", 0x31c},
    {"SET_NOTIFY_A", 0x104},
    {"SET_NOTIFY_B", 0x108},
    {"SET_OBJECT", 0x0},
    {"SET_REPORT_SEMAPHORE_A", 0x1b00},
    {"SET_REPORT_SEMAPHORE_B", 0x1b04},
    {"SET_REPORT_SEMAPHORE_C", 0x1b08},
    {"SET_REPORT_SEMAPHORE_D", 0x1b0c},
    {"SET_SHADER_LOCAL_MEMORY_A", 0x790},
    {"SET_SHADER_LOCAL_MEMORY_B", 0x794},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A", 0x2e4},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B", 0x2e8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C", 0x2ec},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_A", 0x7b0},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_B", 0x7b4},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_A", 0x2a0},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_B", 0x2a4},
    {"WAIT_FOR_IDLE", 0x110},
};
inline constexpr ClassField kFields[] = {
    {"INVALIDATE_SHADER_CACHES_NO_WFI_CONSTANT", 12, 1},
    {"INVALIDATE_SHADER_CACHES_NO_WFI_GLOBAL_DATA", 4, 1},
    {"INVALIDATE_SHADER_CACHES_NO_WFI_INSTRUCTION", 0, 1},
    {"INVALIDATE_SKED_CACHES_V", 0, 1},
    {"LAUNCH_DMA_COMPLETION_TYPE", 4, 2},
    {"LAUNCH_DMA_DST_MEMORY_LAYOUT", 0, 1},
    {"LAUNCH_DMA_INTERRUPT_TYPE", 8, 2},
    {"LAUNCH_DMA_REDUCTION_ENABLE", 1, 1},
    {"LAUNCH_DMA_REDUCTION_FORMAT", 2, 2},
    {"LAUNCH_DMA_REDUCTION_OP", 13, 3},
    {"LAUNCH_DMA_SEMAPHORE_STRUCT_SIZE", 12, 1},
    {"LAUNCH_DMA_SYSMEMBAR_DISABLE", 6, 1},
    {"LINE_COUNT_VALUE", 0, 32},
    {"LINE_LENGTH_IN_VALUE", 0, 32},
    {"LOAD_INLINE_DATA_V", 0, 32},
    {"LOAD_INLINE_QMD_DATA_V", 0, 32},
    {"NOTIFY_TYPE", 0, 32},
    {"NO_OPERATION_V", 0, 32},
    {"OFFSET_OUT_UPPER_VALUE", 0, 25},
    {"OFFSET_OUT_VALUE", 0, 32},
    {"SEND_PCAS_A_QMD_ADDRESS_SHIFTED8", 0, 32},
    {"SEND_PCAS_B_DELTA", 24, 8},
    {"SEND_PCAS_B_FROM", 0, 24},
    {"SEND_SIGNALING_PCAS2_B_OFFSET_MINUS_ONE", 14, 10},
    {"SEND_SIGNALING_PCAS2_B_PCAS_ACTION", 0, 4},
    {"SEND_SIGNALING_PCAS2_B_SELECT", 8, 6},
    {"SEND_SIGNALING_PCAS_B_INVALIDATE", 0, 1},
    {"SEND_SIGNALING_PCAS_B_SCHEDULE", 1, 1},
    {"SET_INLINE_QMD_ADDRESS_A_INLINE_SIZE", 30, 1},
    {"SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER", 0, 9},
    {"SET_INLINE_QMD_ADDRESS_B_QMD_ADDRESS_SHIFTED8_LOWER", 0, 32},
    {"SET_NOTIFY_A_ADDRESS_UPPER", 0, 25},
    {"SET_NOTIFY_B_ADDRESS_LOWER", 0, 32},
    {"SET_OBJECT_CLASS_ID", 0, 16},
    {"SET_OBJECT_ENGINE_ID", 16, 5},
    {"SET_REPORT_SEMAPHORE_A_OFFSET_UPPER", 0, 25},
    {"SET_REPORT_SEMAPHORE_B_OFFSET_LOWER", 0, 32},
    {"SET_REPORT_SEMAPHORE_C_PAYLOAD", 0, 32},
    {"SET_REPORT_SEMAPHORE_D_AWAKEN_ENABLE", 20, 1},
    {"SET_REPORT_SEMAPHORE_D_CONDITIONAL_TRAP", 19, 1},
    {"SET_REPORT_SEMAPHORE_D_FLUSH_DISABLE", 2, 1},
    {"SET_REPORT_SEMAPHORE_D_OPERATION", 0, 2},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_ENABLE", 3, 1},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_FORMAT", 17, 2},
    {"SET_REPORT_SEMAPHORE_D_REDUCTION_OP", 9, 3},
    {"SET_REPORT_SEMAPHORE_D_STRUCTURE_SIZE", 28, 1},
    {"SET_SHADER_LOCAL_MEMORY_A_ADDRESS_UPPER", 0, 25},
    {"SET_SHADER_LOCAL_MEMORY_B_ADDRESS_LOWER", 0, 32},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A_SIZE_UPPER", 0, 8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B_SIZE_LOWER", 0, 32},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_PLURAL_TPC_GPC_COUNT", 16, 8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SINGLETON_TPC_GPC_COUNT", 24, 8},
    {"SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C_MAX_SM_COUNT", 0, 9},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_LOCAL_MEMORY_WINDOW_B_BASE_ADDRESS", 0, 32},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_A_BASE_ADDRESS_UPPER", 0, 17},
    {"SET_SHADER_SHARED_MEMORY_WINDOW_B_BASE_ADDRESS", 0, 32},
    {"WAIT_FOR_IDLE_V", 0, 32},
};
}  // namespace clcbc0

}  // namespace rawgpu::autogen::nv
