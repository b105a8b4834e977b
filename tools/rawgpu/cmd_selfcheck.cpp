#include <llvm/Support/JSON.h>

#include <filesystem>

#include "commands.h"
#include "environment.h"
#include "json_out.h"
#include "rawgpu/base/format.h"
#include "rawgpu/base/poll.h"
#include "rawgpu/drivers/pci/doctor.h"

namespace rawgpu::tools {

namespace {

enum class Outcome { kPass, kFail, kSkip };

struct Check {
  std::string name;
  Outcome outcome;
  std::string detail;
};

Check check_llvm() {
  auto missing = llvm_missing_targets();
  if (!missing.empty()) {
    std::string m;
    for (const auto& t : missing) m += (m.empty() ? "" : ", ") + t;
    return {"llvm", Outcome::kFail, "LLVM " + llvm_version() + " lacks targets: " + m};
  }
  return {"llvm", Outcome::kPass, "LLVM " + llvm_version() + " with AMDGPU, NVPTX and X86 targets"};
}

Check check_pci() {
  pci::EnumerateOptions opts;
  opts.display_only = false;
  auto devices = pci::enumerate(opts);
  if (!devices.ok()) return {"pci", Outcome::kFail, devices.error().to_string()};
  size_t gpus = 0, known = 0;
  for (const auto& d : *devices) {
    gpus += d.is_candidate_gpu() ? 1 : 0;
    known += d.known != nullptr ? 1 : 0;
  }
  return {"pci", Outcome::kPass,
          strformat("%zu PCI device(s), %zu AMD/NVIDIA GPU(s), %zu known to rawgpu",
                    devices->size(), gpus, known)};
}

// The host checks of `rawgpu doctor`: ok and info pass, a warning is SKIPPED (the VFIO path is
// optional: the tests run on the simulated GPUs) with what to do, a failure fails.
std::vector<Check> check_host() {
  std::vector<Check> out;
  for (const pci::CheckResult& c : pci::host_checks({})) {
    const Outcome o = c.level == pci::CheckLevel::kFail   ? Outcome::kFail
                      : c.level == pci::CheckLevel::kWarn ? Outcome::kSkip
                                                          : Outcome::kPass;
    out.push_back({c.name, o, c.detail + (c.fix.empty() ? "" : " (" + c.fix + ")")});
  }
  return out;
}

Check check_timer() {
  // The deadline poller must observe real time: wait 2 ms on the steady clock.
  const auto start = std::chrono::steady_clock::now();
  PollOptions o;
  o.timeout = std::chrono::milliseconds(2);
  Status st = poll_until("a predicate that never holds", [] { return false; }, o);
  const auto waited = std::chrono::steady_clock::now() - start;
  if (st.ok() || !st.error().is(Errc::kTimeout) || waited < std::chrono::milliseconds(2))
    return {"timer", Outcome::kFail, "deadline poller did not time out as expected"};
  return {"timer", Outcome::kPass,
          "deadline poller timed out after " +
              format_duration(std::chrono::duration_cast<Nanos>(waited))};
}

Check check_ptxas() {
  auto p = find_ptxas();
  if (!p) return {"ptxas", Outcome::kSkip, "ptxas not found; cubins cannot be built (optional)"};
  if (p->version.empty()) return {"ptxas", Outcome::kFail, p->path + " did not report a version"};
  return {"ptxas", Outcome::kPass, p->path + ": " + p->version};
}

std::vector<Check> check_firmware_sets() {
  std::vector<Check> out;
  for (const FirmwareSet& s : check_firmware()) {
    if (s.missing.empty())
      out.push_back({"firmware", Outcome::kPass, s.name + " present"});
    else
      out.push_back({"firmware", Outcome::kSkip,
                     s.name + ": missing " + s.missing.front() + " (apt-get install " + s.package +
                         "/bookworm-backports)"});
  }
  return out;
}

}  // namespace

cli::Command selfcheck_command() {
  cli::Command c;
  c.name = "selfcheck";
  c.summary = "check that this installation can do its job (LLVM, PCI, VFIO, tools, firmware)";
  c.description =
      "Runs quick checks of the environment: LLVM targets, PCI enumeration, VFIO/IOMMU,\n"
      "the deadline timer, ptxas and firmware packages. Optional parts that are absent are\n"
      "SKIPPED with a hint; the exit code is 1 if any check FAILED.";
  c.options = {{"json", 'j', "", "print JSON", ""}};
  c.run = [](const cli::Args& args, cli::Io& io) {
    std::vector<Check> checks = {check_llvm(), check_pci()};
    for (Check& h : check_host()) checks.push_back(std::move(h));
    checks.push_back(check_timer());
    checks.push_back(check_ptxas());
    for (Check& f : check_firmware_sets()) checks.push_back(std::move(f));
    int passed = 0, failed = 0, skipped = 0;
    for (const Check& ch : checks) {
      passed += ch.outcome == Outcome::kPass;
      failed += ch.outcome == Outcome::kFail;
      skipped += ch.outcome == Outcome::kSkip;
    }
    if (args.flag("json")) {
      io.out << json_document("selfcheck", [&](llvm::json::OStream& j) {
        j.attributeArray("checks", [&] {
          for (const Check& ch : checks)
            j.object([&] {
              j.attribute("name", ch.name);
              j.attribute("outcome", ch.outcome == Outcome::kPass   ? "pass"
                                     : ch.outcome == Outcome::kFail ? "fail"
                                                                    : "skipped");
              j.attribute("detail", ch.detail);
            });
        });
        j.attribute("passed", passed);
        j.attribute("failed", failed);
        j.attribute("skipped", skipped);
      });
      return failed == 0 ? cli::kExitOk : cli::kExitFailure;
    }
    for (const Check& ch : checks) {
      const char* tag = ch.outcome == Outcome::kPass   ? "PASS   "
                        : ch.outcome == Outcome::kFail ? "FAIL   "
                                                       : "SKIPPED";
      io.out << "  " << tag << " " << ch.name
             << std::string(10 - std::min<size_t>(9, ch.name.size()), ' ') << ch.detail << "\n";
    }
    io.out << strformat("selfcheck: %d ok, %d failed, %d skipped\n", passed, failed, skipped);
    return failed == 0 ? cli::kExitOk : cli::kExitFailure;
  };
  return c;
}

}  // namespace rawgpu::tools
