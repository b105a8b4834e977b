// `rawgpu boot DEV`, `rawgpu trace-boot DEV` and `rawgpu bench boot`: the AM boot of an AMD GPU
// (drivers/amd boot.h) with its steps as they complete, the register trace of a boot, and the
// boot's host cost, MMIO counts and time per IP block.
#include <llvm/Support/JSON.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "amd_function.h"
#include "commands.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/drivers/amd/pci_device.h"
#include "rawgpu/sim/amd_pci.h"
#include "rawgpu/sim/sim_gpu.h"

namespace rawgpu::tools {
namespace {

namespace amd = drivers::amd;

// Driver options for DEV: a simulated board takes its own firmware package; --firmware DIR
// overrides the directory either way.
Result<amd::PciAmdOptions> options_for(std::string_view dev, pci::PciDevice& fn,
                                       const cli::Args& args, bool reset) {
  amd::PciAmdOptions o;
  if (dev.starts_with("sim:"))
    o = RG_TRY(sim::sim_driver_options(static_cast<sim::AmdPciFunction&>(fn)));
  else if (const char* env = std::getenv("RAWGPU_AMD_FIRMWARE_DIR"); env != nullptr && *env)
    o.boot.firmware_dirs = {env};
  if (const auto dir = args.get("firmware")) o.boot.firmware_dirs = {*dir};
  o.boot.force_reset = reset;
  return o;
}

void step_json(llvm::json::OStream& j, const amd::BootStep& s) {
  j.object([&] {
    j.attribute("block", s.block);
    j.attribute("step", s.name);
    j.attribute("skipped", s.skipped);
    j.attribute("host_ns", static_cast<int64_t>(s.host.count()));
    j.attribute("device_ns", static_cast<int64_t>(s.device.count()));
    j.attribute("mmio_reads", static_cast<int64_t>(s.mmio_reads));
    j.attribute("mmio_writes", static_cast<int64_t>(s.mmio_writes));
  });
}

void report_json(llvm::json::OStream& j, const amd::BootReport& r) {
  j.attribute("kind", std::string(amd::boot_kind_name(r.kind)));
  j.attribute("reason", r.reason);
  j.attribute("host_ns", static_cast<int64_t>(r.host.count()));
  j.attribute("device_ns", static_cast<int64_t>(r.device.count()));
  j.attribute("mmio_reads", static_cast<int64_t>(r.mmio_reads));
  j.attribute("mmio_writes", static_cast<int64_t>(r.mmio_writes));
  j.attributeArray("steps", [&] {
    for (const amd::BootStep& s : r.steps) step_json(j, s);
  });
  j.attributeArray("firmware", [&] {
    for (const amd::FirmwareImage& f : r.firmware)
      j.object([&] {
        j.attribute("name", f.name);
        j.attribute("path", f.path);
        j.attribute("sha256", f.sha256);
      });
  });
}

std::string step_line(const amd::BootStep& s) {
  if (s.skipped) return strformat("  %-5s %-36s skipped (warm)\n", s.block.c_str(), s.name.c_str());
  return strformat("  %-5s %-36s %10s host %10s device\n", s.block.c_str(), s.name.c_str(),
                   format_duration(s.host).c_str(), format_duration(s.device).c_str());
}

int run_boot(const cli::Args& args, cli::Io& io) {
  const std::string& dev = args.positionals()[0];
  const bool json = args.flag("json");
  const int boots = args.flag("twice") ? 2 : 1;
  std::unique_ptr<pci::PciDevice> keep;
  auto fn = open_amd_function(dev, keep);
  auto fail = [&](const Error& e) {
    io.err << "rawgpu boot: " << e.to_string() << "\n";
    return cli::kExitFailure;
  };
  if (!fn) return fail(fn.error());
  std::vector<amd::BootReport> reports;
  for (int i = 0; i < boots; ++i) {
    auto o = options_for(dev, **fn, args, i == 0 && args.flag("reset"));
    if (!o) return fail(o.error());
    if (!json) {
      io.out << strformat("booting %s%s:\n", dev.c_str(), i > 0 ? " again (warm)" : "");
      o->boot.progress = [&](const amd::BootStep& s) { io.out << step_line(s) << std::flush; };
    }
    auto d = amd::PciAmdDevice::open(**fn, *o);
    if (!d) return fail(d.error());
    reports.push_back((*d)->boot_report());
    if (!json) {
      const amd::BootReport& r = reports.back();
      io.out << strformat(
          "%s: %s boot of %s in %s host (%s on the device's clock), %llu MMIO "
          "reads, %llu writes\n  why: %s\n",
          dev.c_str(), std::string(amd::boot_kind_name(r.kind)).c_str(), (*d)->target().c_str(),
          format_duration(r.host).c_str(), format_duration(r.device).c_str(),
          static_cast<unsigned long long>(r.mmio_reads),
          static_cast<unsigned long long>(r.mmio_writes), r.reason.c_str());
      for (const amd::FirmwareImage& f : r.firmware)
        io.out << strformat("  firmware %s  %s\n", f.sha256.substr(0, 16).c_str(), f.path.c_str());
    }
  }
  if (json)
    io.out << json_document("boot", [&](llvm::json::OStream& j) {
      j.attribute("device", dev);
      j.attributeArray("boots", [&] {
        for (const amd::BootReport& r : reports) j.object([&] { report_json(j, r); });
      });
    });
  return cli::kExitOk;
}

int run_trace_boot(const cli::Args& args, cli::Io& io) {
  const std::string& dev = args.positionals()[0];
  if (!dev.starts_with("sim:")) {
    io.err << "rawgpu trace-boot: tracing records through the simulated PCI function; for "
              "amd:BDF use `rawgpu boot "
           << dev << "` (steps and MMIO counts)\n";
    return cli::kExitUsage;
  }
  sim::AmdPciConfig c;
  auto g = sim::parse_sim_device(dev);
  if (!g) {
    io.err << "rawgpu trace-boot: " << g.error().to_string() << "\n";
    return cli::kExitFailure;
  }
  c.gpu = *g;
  c.gpu.device_thread = false;
  c.trace = true;
  auto fn = sim::AmdPciFunction::create(c);
  auto fail = [&](const Error& e) {
    io.err << "rawgpu trace-boot: " << e.to_string() << "\n";
    return cli::kExitFailure;
  };
  if (!fn) return fail(fn.error());
  const bool warm = args.flag("warm");
  for (int i = 0; i < (warm ? 2 : 1); ++i) {
    (*fn)->clear_trace();
    auto o = options_for(dev, **fn, args, false);
    if (!o) return fail(o.error());
    auto d = amd::PciAmdDevice::open(**fn, *o);
    if (!d) return fail(d.error());
  }
  for (const std::string& l : (*fn)->trace()) io.out << l << "\n";
  return cli::kExitOk;
}

}  // namespace

// Cold boot of a fresh simulated board, then warm boots over it, timed on the host; per IP
// block from the report of the median run. The simulator answers every wait at once, so the
// host cost is the driver's own; the device-clock column is what its waits and sleeps cost on
// the virtual clock, a floor for what a real GPU adds (PSP and SMU firmware take longer).
int bench_boot(const cli::Args& args, cli::Io& io) {
  const std::string dev = args.get("device").value_or("sim:gfx1100");
  auto reps = args.get_u64_in("repeats", 1, 1000);
  if (!reps) {
    io.err << "rawgpu bench boot: " << reps.error().message() << "\n";
    return cli::kExitUsage;
  }
  auto fail = [&](const Error& e) {
    io.err << "rawgpu bench boot: " << e.to_string() << "\n";
    return cli::kExitFailure;
  };
  if (!dev.starts_with("sim:"))
    return fail(make_error(Errc::kUnsupported, "bench boot runs on sim:gfx1100 or sim:gfx1201"));
  struct Run {
    amd::BootReport report;
    double ms = 0;
  };
  std::vector<Run> cold, warm;
  for (uint64_t i = 0; i < *reps; ++i) {
    sim::AmdPciConfig c;
    auto g = sim::parse_sim_device(dev);
    if (!g) return fail(g.error());
    c.gpu = *g;
    c.gpu.device_thread = false;
    auto fn = sim::AmdPciFunction::create(c);
    if (!fn) return fail(fn.error());
    for (int k = 0; k < 2; ++k) {
      auto o = sim::sim_driver_options(**fn);
      if (!o) return fail(o.error());
      const auto t0 = std::chrono::steady_clock::now();
      auto d = amd::PciAmdDevice::open(**fn, *o);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (!d) return fail(d.error());
      (k == 0 ? cold : warm).push_back({(*d)->boot_report(), ms});
    }
  }
  auto median = [](std::vector<Run>& v) -> const Run& {
    std::sort(v.begin(), v.end(), [](const Run& a, const Run& b) { return a.ms < b.ms; });
    return v[v.size() / 2];
  };
  const Run& mc = median(cold);
  const Run& mw = median(warm);
  if (args.flag("json")) {
    io.out << json_document("bench boot", [&](llvm::json::OStream& j) {
      j.attribute("device", dev);
      j.attribute("repeats", static_cast<int64_t>(*reps));
      for (const auto& [name, run] :
           {std::pair<const char*, const Run*>{"cold", &mc}, {"warm", &mw}})
        j.attributeObject(name, [&] {
          j.attribute("open_ms", run->ms);
          report_json(j, run->report);
          j.attributeArray("blocks", [&] {
            for (const amd::BootStep& b : run->report.per_block()) step_json(j, b);
          });
        });
    });
    return cli::kExitOk;
  }
  io.out << strformat("AM boot of %s (median of %llu; open() wall time, the boot's share below)\n",
                      dev.c_str(), static_cast<unsigned long long>(*reps));
  for (const auto& [name, run] : {std::pair<const char*, const Run*>{"cold", &mc}, {"warm", &mw}}) {
    const amd::BootReport& r = run->report;
    io.out << strformat(
        "  %s: open %.2f ms, boot %s host, %s on the device clock, %llu MMIO reads "
        "/ %llu writes\n",
        name, run->ms, format_duration(r.host).c_str(), format_duration(r.device).c_str(),
        static_cast<unsigned long long>(r.mmio_reads),
        static_cast<unsigned long long>(r.mmio_writes));
    for (const amd::BootStep& b : r.per_block())
      io.out << strformat("    %-5s %10s host %10s device %6llu rd %6llu wr%s\n", b.block.c_str(),
                          format_duration(b.host).c_str(), format_duration(b.device).c_str(),
                          static_cast<unsigned long long>(b.mmio_reads),
                          static_cast<unsigned long long>(b.mmio_writes),
                          b.skipped ? "  (skipped)" : "");
  }
  io.out << strformat("  warm boot target: <= 50 ms host: %s\n", mw.ms <= 50.0 ? "ok" : "MISSED");
  return cli::kExitOk;
}

cli::Command boot_command() {
  cli::Command c;
  c.name = "boot";
  c.summary = "boot an AMD GPU with the AM driver and show each step";
  c.description =
      "Brings the GPU up from whatever state it is in (drivers/amd boot.h): cold (firmware\n"
      "loaded through the PSP), warm (a previous rawgpu boot finished cleanly: PSP and SMU\n"
      "reused) or after a mode-1 reset (the firmware ran but its state was unusable, or\n"
      "--reset). Each step prints as it completes with its host time and its time on the\n"
      "device's clock. DEV: sim:gfx1100, sim:gfx1201 (a fresh simulated board; --twice boots it\n"
      "again to show a warm boot) or amd:BDF (bound to vfio-pci).";
  c.options = {{"reset", 0, "", "mode-1 reset first whenever the firmware runs", ""},
               {"twice", 0, "", "boot again after closing (shows the warm boot)", ""},
               {"firmware", 0, "DIR", "firmware directory (default /lib/firmware/amdgpu)", ""},
               {"json", 'j', "", "print JSON", ""}};
  c.positionals = {{"DEV", "sim:gfx1100, sim:gfx1201 or amd:BDF", true, false}};
  c.run = run_boot;
  return c;
}

cli::Command trace_boot_command() {
  cli::Command c;
  c.name = "trace-boot";
  c.summary = "print the register, doorbell and DMA trace of a boot of a simulated GPU";
  c.description =
      "Boots a fresh simulated board (sim:gfx1100, sim:gfx1201) with the AM driver and prints\n"
      "every config, BAR and DMA access with upstream register names, one per line (the format\n"
      "of the golden traces in tests/drivers/golden). --warm prints the second, warm boot.";
  c.options = {{"warm", 0, "", "trace the warm boot that follows the cold one", ""},
               {"firmware", 0, "DIR", "firmware directory (default: the board's own package)", ""}};
  c.positionals = {{"DEV", "sim:gfx1100 or sim:gfx1201", true, false}};
  c.run = run_trace_boot;
  return c;
}

}  // namespace rawgpu::tools
