// The `rawgpu` tool's subcommands.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rawgpu/cli.h"
#include "rawgpu/drivers/pci/device_info.h"

namespace rawgpu::tools {

std::vector<cli::Command> all_commands();
// "rawgpu 0.x (C++20, gcc 12.2.0, release)": the first line of `rawgpu version`, and `--version`.
std::string version_line();
// The end of `rawgpu --help`: environment variables, RAWGPU_DEBUG tags, exit codes.
std::string environment_help();

cli::Command list_command();
cli::Command version_command();
cli::Command selfcheck_command();
cli::Command bench_command();
cli::Command compile_command();
cli::Command demo_command();
cli::Command inspect_command();
cli::Command bind_command();
cli::Command doctor_command();
cli::Command release_command();
cli::Command info_command();
// `rawgpu info` for nv:<n> and sim:sm_86|sm_89|sm_90 (cmd_info_nv.cpp).
int run_nv_info(const std::string& dev, bool json, cli::Io& io);
cli::Command regs_command();
cli::Command fwinfo_command();
cli::Command boot_command();
cli::Command trace_boot_command();
// `rawgpu bench boot` (cmd_boot.cpp).
int bench_boot(const cli::Args& args, cli::Io& io);
// `rawgpu bench launch` (cmd_bench_launch.cpp).
int bench_launch(const cli::Args& args, cli::Io& io);
// The NVIDIA variants (cmd_bench_nv.cpp), for --device sim:sm_*.
int bench_launch_nv(const std::string& dev, const cli::Args& args, cli::Io& io);
int bench_emulator_nv(const std::string& dev, const cli::Args& args, cli::Io& io);
// `rawgpu bench emulator` (cmd_bench_emulator.cpp).
int bench_emulator(const cli::Args& args, cli::Io& io);
// `rawgpu bench gemm` (cmd_bench_gemm.cpp).
int bench_gemm(const cli::Args& args, cli::Io& io);
// `rawgpu bench compile` (cmd_bench_compile.cpp).
int bench_compile(const cli::Args& args, cli::Io& io);

// `rawgpu inspect` (cmd_inspect.cpp) reads at most this much.
inline constexpr uint64_t kMaxInspectBytes = 1ull << 30;
// The whole file, or a typed error naming it: kNotFound (missing), kInvalidArgument (a
// directory), kPermission, kIo (with the OS's reason), kOutOfRange (more than max_bytes; regular
// files are refused by their size before reading).
Result<std::vector<uint8_t>> read_binary_file(const std::string& path, uint64_t max_bytes);

// Rendering used by `rawgpu list` (exposed for tests).
std::string render_devices_text(const std::vector<pci::DeviceInfo>& devices, bool display_only);
std::string render_devices_json(const std::vector<pci::DeviceInfo>& devices);

}  // namespace rawgpu::tools
