#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

#include <filesystem>
#include <sstream>
#include <tuple>

#include "../drivers/fake_pci.h"
#include "commands.h"
#include "json_out.h"
#include "rawgpu/cli.h"

namespace rawgpu {
namespace {

cli::Command sample() {
  cli::Command c;
  c.name = "bench";
  c.summary = "run a benchmark";
  c.options = {{"json", 'j', "", "JSON output", ""},
               {"size", 's', "BYTES", "arena size", "16GiB"},
               {"format", 0, "FMT", "page-table format", ""}};
  c.positionals = {{"trace", "trace file", true, false}};
  c.run = [](const cli::Args& a, cli::Io& io) {
    io.out << "trace=" << a.positionals()[0] << " json=" << a.flag("json")
           << " size=" << *a.get_size("size") << "\n";
    return 0;
  };
  return c;
}

Result<cli::Args> parse(std::vector<std::string> argv) { return cli::parse(sample(), argv); }

TEST(Cli, ParsesFlagsOptionsAndPositionals) {
  auto a = parse({"--json", "t.txt", "--size", "2M"});
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  EXPECT_TRUE(a->flag("json"));
  EXPECT_EQ(*a->get_size("size"), 2u << 20);
  EXPECT_EQ(a->positionals(), std::vector<std::string>{"t.txt"});
  auto b = parse({"-s", "0x1000", "--format=gfx11", "-j", "--", "-weird-name"});
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(*b->get_u64("size"), 0x1000u);
  EXPECT_EQ(*b->get("format"), "gfx11");
  EXPECT_EQ(b->positionals()[0], "-weird-name");
  auto defaults = parse({"t"});
  ASSERT_TRUE(defaults.ok());
  EXPECT_FALSE(defaults->flag("json"));
  EXPECT_EQ(*defaults->get_size("size"), 16ull << 30);
  EXPECT_FALSE(defaults->get("format").has_value());
}

TEST(Cli, Errors) {
  EXPECT_NE(parse({"--nope", "t"}).error().message().find("unknown option '--nope'"),
            std::string::npos);
  EXPECT_NE(parse({"t", "--size"}).error().message().find("needs a value"), std::string::npos);
  EXPECT_NE(parse({"--json=1", "t"}).error().message().find("takes no value"), std::string::npos);
  EXPECT_NE(parse({}).error().message().find("needs 1 argument"), std::string::npos);
  EXPECT_NE(parse({"a", "b"}).error().message().find("unexpected argument 'b'"), std::string::npos);
  auto bad_size = parse({"t", "--size", "lots"});
  ASSERT_TRUE(bad_size.ok());
  EXPECT_EQ(bad_size->get_size("size").error().code(), Errc::kParse);
}

int run_main(std::vector<std::string> argv, std::string* out, std::string* err) {
  std::vector<cli::Command> cmds = {sample()};
  std::ostringstream o, e;
  cli::Io io{o, e};
  const int rc = cli::main("rawgpu", cmds, argv, io);
  *out = o.str();
  *err = e.str();
  return rc;
}

TEST(Cli, Dispatch) {
  std::string out, err;
  EXPECT_EQ(run_main({"bench", "x", "-j"}, &out, &err), 0);
  EXPECT_EQ(out, "trace=x json=1 size=17179869184\n");
  EXPECT_EQ(run_main({"bench", "--help"}, &out, &err), 0);
  EXPECT_NE(out.find("usage: rawgpu bench [options] trace"), std::string::npos) << out;
  EXPECT_NE(out.find("--size BYTES"), std::string::npos) << out;
  EXPECT_NE(out.find("(default: 16GiB)"), std::string::npos) << out;
  EXPECT_EQ(run_main({"help", "bench"}, &out, &err), 0);
  EXPECT_NE(out.find("usage: rawgpu bench"), std::string::npos);
  EXPECT_EQ(run_main({"--help"}, &out, &err), 0);
  EXPECT_NE(out.find("bench       run a benchmark"), std::string::npos) << out;
  EXPECT_EQ(run_main({"frobnicate"}, &out, &err), 2);
  EXPECT_NE(err.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_EQ(run_main({"bench", "--bogus"}, &out, &err), 2);
  EXPECT_NE(err.find("Run 'rawgpu bench --help'"), std::string::npos);
  EXPECT_EQ(run_main({}, &out, &err), 2);
}

TEST(Cli, NestedSubcommandsHaveTheirOwnOptions) {
  cli::Command parent;
  parent.name = "bench";
  parent.summary = "benchmarks";
  cli::Command a = sample();
  a.name = "tlsf";
  cli::Command b;
  b.name = "pagetable";
  b.summary = "page tables";
  b.options = {{"format", 'f', "FMT", "format", "gfx9"}};
  b.run = [](const cli::Args& args, cli::Io& io) {
    io.out << "format=" << *args.get("format") << "\n";
    return 0;
  };
  parent.subcommands = {a, b};
  std::vector<cli::Command> cmds = {parent};
  auto run = [&](std::vector<std::string> argv, std::string* out, std::string* err) {
    std::ostringstream o, e;
    cli::Io io{o, e};
    const int rc = cli::main("rawgpu", cmds, argv, io, "rawgpu 9.9");
    *out = o.str();
    *err = e.str();
    return rc;
  };
  std::string out, err;
  EXPECT_EQ(run({"bench", "pagetable", "-f", "gfx12"}, &out, &err), 0);
  EXPECT_EQ(out, "format=gfx12\n");
  EXPECT_EQ(run({"bench", "tlsf", "t.txt", "-j"}, &out, &err), 0);
  EXPECT_EQ(out, "trace=t.txt json=1 size=17179869184\n");
  // tlsf's option is not pagetable's.
  EXPECT_EQ(run({"bench", "pagetable", "--size", "1"}, &out, &err), cli::kExitUsage);
  EXPECT_NE(err.find("unknown option '--size' for 'pagetable'"), std::string::npos) << err;
  EXPECT_NE(err.find("Run 'rawgpu bench pagetable --help'"), std::string::npos) << err;
  EXPECT_EQ(run({"bench"}, &out, &err), cli::kExitUsage);
  EXPECT_NE(err.find("which one? (tlsf or pagetable)"), std::string::npos) << err;
  EXPECT_EQ(run({"bench", "x"}, &out, &err), cli::kExitUsage);
  EXPECT_EQ(run({"bench", "pagetable", "--help"}, &out, &err), 0);
  EXPECT_NE(out.find("usage: rawgpu bench pagetable [options]"), std::string::npos) << out;
  EXPECT_EQ(run({"help", "bench", "tlsf"}, &out, &err), 0);
  EXPECT_NE(out.find("usage: rawgpu bench tlsf [options] trace"), std::string::npos) << out;
  EXPECT_EQ(run({"bench", "--help"}, &out, &err), 0);
  EXPECT_NE(out.find("usage: rawgpu bench COMMAND"), std::string::npos) << out;
  EXPECT_NE(out.find("pagetable   page tables"), std::string::npos) << out;
  EXPECT_EQ(run({"--version"}, &out, &err), 0);
  EXPECT_EQ(out, "rawgpu 9.9\n");
  EXPECT_EQ(run({"--help"}, &out, &err), 0);
  EXPECT_NE(out.find("    pagetable page tables"), std::string::npos) << out;
}

TEST(Cli, RangeCheckedNumbers) {
  cli::Command c = sample();
  c.options.push_back({"repeats", 'r', "N", "repeats", "5"});
  auto a = cli::parse(c, std::vector<std::string>{"t", "-r", "500"});
  ASSERT_TRUE(a.ok());
  auto r = a->get_u64_in("repeats", 1, 100);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "--repeats 500 is out of range: expected 1..100");
  EXPECT_EQ(*a->get_u64_in("repeats", 500, 500), 500u);
  auto d = cli::parse(c, std::vector<std::string>{"t"});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d->get_u64_in("repeats", 1, 100), 5u);  // the default is range-checked the same way
}

TEST(RawgpuTool, EveryCommandHasHelp) {
  for (const cli::Command& c : tools::all_commands()) {
    EXPECT_FALSE(c.summary.empty()) << c.name;
    EXPECT_FALSE(c.description.empty()) << c.name;
    const std::string u = cli::usage("rawgpu", c);
    EXPECT_NE(u.find("usage: rawgpu " + c.name), std::string::npos);
    for (const cli::Command& s : c.subcommands) {
      EXPECT_FALSE(s.summary.empty()) << c.name << " " << s.name;
      EXPECT_FALSE(s.description.empty()) << c.name << " " << s.name;
      EXPECT_TRUE(s.run) << c.name << " " << s.name;
      EXPECT_NE(cli::usage("rawgpu " + c.name, s).find("usage: rawgpu " + c.name + " " + s.name),
                std::string::npos);
    }
  }
}

std::vector<pci::DeviceInfo> fake_devices(rawgpu::testing::FakePciSystem& sys) {
  pci::EnumerateOptions o;
  o.libpci_dump = sys.dump_path();
  o.sysfs_root = sys.sysfs_root();
  return *pci::enumerate(o);
}

rawgpu::testing::FakePciFunction fake_gpu() {
  rawgpu::testing::FakePciFunction f;
  f.bdf = "0000:0a:00.0";
  f.vendor = pci::kVendorAmd;
  f.device = 0x7550;
  f.class_code = 0x030000;
  f.bar_registers = {{0, 0xc}, {1, 0x40}};
  f.driver = "amdgpu";
  f.iommu_group = 3;
  f.resources = {{0x4000000000, 0x43ffffffff, 0x0014220c}};
  return f;
}

TEST(RawgpuList, JsonIsValidAndComplete) {
  rawgpu::testing::FakePciSystem sys({fake_gpu()});
  const std::string text = tools::render_devices_json(fake_devices(sys));
  auto parsed = llvm::json::parse(text);
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError()) << "\n" << text;
  const llvm::json::Object* root = parsed->getAsObject();
  ASSERT_NE(root, nullptr);
  // The envelope every --json document has: schema and command first.
  EXPECT_EQ(text.find("{\n  \"schema\": 1,\n  \"command\": \"list\","), 0u) << text;
  EXPECT_EQ(root->getInteger("schema"), std::optional<int64_t>(tools::kJsonSchema));
  EXPECT_EQ(root->getString("command"), std::optional<llvm::StringRef>("list"));
  EXPECT_EQ(root->getInteger("gpu_count"), std::optional<int64_t>(1));
  const llvm::json::Array* devices = root->getArray("devices");
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->size(), 1u);
  const llvm::json::Object* d = (*devices)[0].getAsObject();
  EXPECT_EQ(d->getString("bdf"), std::optional<llvm::StringRef>("0000:0a:00.0"));
  EXPECT_EQ(d->getString("device_id"), std::optional<llvm::StringRef>("0x7550"));
  EXPECT_EQ(d->getString("driver"), std::optional<llvm::StringRef>("amdgpu"));
  EXPECT_EQ(d->getInteger("iommu_group"), std::optional<int64_t>(3));
  EXPECT_EQ(d->getBoolean("gpu"), std::optional<bool>(true));
  const llvm::json::Object* rg = d->getObject("rawgpu");
  ASSERT_NE(rg, nullptr);
  EXPECT_EQ(rg->getString("target"), std::optional<llvm::StringRef>("gfx1201"));
  const llvm::json::Array* bars = d->getArray("bars");
  ASSERT_NE(bars, nullptr);
  ASSERT_EQ(bars->size(), 1u);
  EXPECT_EQ((*bars)[0].getAsObject()->getInteger("size"), std::optional<int64_t>(16ll << 30));
}

TEST(RawgpuList, EmptyJsonAndText) {
  const std::string json = tools::render_devices_json({});
  auto parsed = llvm::json::parse(json);
  ASSERT_TRUE(static_cast<bool>(parsed)) << json;
  EXPECT_EQ(parsed->getAsObject()->getString("command"), std::optional<llvm::StringRef>("list"));
  EXPECT_EQ(parsed->getAsObject()->getInteger("gpu_count"), std::optional<int64_t>(0));
  EXPECT_EQ(parsed->getAsObject()->getArray("devices")->size(), 0u);
  const std::string text = tools::render_devices_text({}, true);
  EXPECT_NE(text.find("No AMD or NVIDIA GPU found (0 PCI display device(s))"), std::string::npos)
      << text;
}

TEST(RawgpuList, TextShowsWhatRawgpuKnows) {
  rawgpu::testing::FakePciSystem sys({fake_gpu()});
  const std::string text = tools::render_devices_text(fake_devices(sys), true);
  EXPECT_NE(text.find("0000:0a:00.0  1002:7550"), std::string::npos) << text;
  EXPECT_NE(text.find("rawgpu: known Navi48 gfx1201 (rdna4)"), std::string::npos) << text;
  EXPECT_NE(text.find("driver: amdgpu  iommu group: 3"), std::string::npos) << text;
  EXPECT_NE(text.find("BAR0 16 GiB mem64 pref @ 0x4000000000"), std::string::npos) << text;
  EXPECT_NE(text.find("1 AMD/NVIDIA GPU(s) found."), std::string::npos) << text;
}

TEST(RawgpuList, CommandRunsOnAFakeSystem) {
  rawgpu::testing::FakePciSystem sys({fake_gpu()});
  std::vector<cli::Command> cmds = tools::all_commands();
  std::ostringstream o, e;
  cli::Io io{o, e};
  std::vector<std::string> argv = {"list",          "--json",       "--libpci-dump",
                                   sys.dump_path(), "--sysfs-root", sys.sysfs_root()};
  EXPECT_EQ(cli::main("rawgpu", cmds, argv, io), 0) << e.str();
  EXPECT_TRUE(static_cast<bool>(llvm::json::parse(o.str()))) << o.str();
  std::ostringstream o2, e2;
  cli::Io io2{o2, e2};
  std::vector<std::string> bad = {"list", "--libpci-dump", "/nonexistent.dump"};
  EXPECT_EQ(cli::main("rawgpu", cmds, bad, io2), 1);
  EXPECT_NE(e2.str().find("[not_found]"), std::string::npos) << e2.str();
}

TEST(RawgpuList, DirectoryAsDumpSaysSo) {
  // `rawgpu list --libpci-dump /tmp` used to say "does not exist".
  std::vector<cli::Command> cmds = tools::all_commands();
  std::ostringstream o, e;
  cli::Io io{o, e};
  const std::string dir = ::testing::TempDir();
  std::vector<std::string> argv = {"list", "--libpci-dump", dir};
  EXPECT_EQ(cli::main("rawgpu", cmds, argv, io), cli::kExitFailure);
  EXPECT_NE(e.str().find(dir + " is a directory, not a file"), std::string::npos) << e.str();
  EXPECT_EQ(e.str().find("does not exist"), std::string::npos) << e.str();
}

TEST(RawgpuList, DumpAloneShowsNothingOfThisMachine) {
  // A dumped device at an address this machine also has must not show this machine's driver,
  // IOMMU group or BARs.
  std::error_code ec;
  std::string live;
  for (const auto& d : std::filesystem::directory_iterator("/sys/bus/pci/devices", ec))
    if (std::filesystem::is_symlink(d.path() / "driver", ec)) {
      live = d.path().filename().string();
      break;
    }
  if (live.empty()) GTEST_SKIP() << "SKIPPED: no PCI function with a bound driver on this machine";
  rawgpu::testing::FakePciFunction f = fake_gpu();
  f.bdf = live;
  rawgpu::testing::FakePciSystem sys({f});
  std::vector<cli::Command> cmds = tools::all_commands();
  std::ostringstream o, e;
  cli::Io io{o, e};
  std::vector<std::string> argv = {"list", "--json", "--libpci-dump", sys.dump_path()};
  ASSERT_EQ(cli::main("rawgpu", cmds, argv, io), cli::kExitOk) << e.str();
  auto parsed = llvm::json::parse(o.str());
  ASSERT_TRUE(static_cast<bool>(parsed)) << o.str();
  const llvm::json::Array* devices = parsed->getAsObject()->getArray("devices");
  ASSERT_NE(devices, nullptr);
  ASSERT_EQ(devices->size(), 1u) << o.str();
  const llvm::json::Object& d = *(*devices)[0].getAsObject();
  EXPECT_EQ(d.getString("bdf"), std::optional<llvm::StringRef>(live));
  EXPECT_EQ(d.get("driver")->kind(), llvm::json::Value::Null) << o.str();
  EXPECT_EQ(d.get("iommu_group")->kind(), llvm::json::Value::Null) << o.str();
  const llvm::json::Array& bars = *d.getArray("bars");
  ASSERT_EQ(bars.size(), 1u) << o.str();  // the dump's 64-bit BAR0, no size
  EXPECT_EQ(bars[0].getAsObject()->getInteger("size"), std::optional<int64_t>(0));
}

}  // namespace
}  // namespace rawgpu

namespace rawgpu {
namespace {

// `rawgpu info` on the simulated boards: the discovery table as the driver reads it, in text
// and JSON; a bad device name is a failure that says what is accepted.
TEST(RawgpuInfo, SimulatedBoardsTextAndJson) {
  std::vector<cli::Command> cmds = tools::all_commands();
  for (auto [dev, target, gc, cus] : {std::tuple{"sim:gfx1100", "gfx1100", "11.0.0", 96},
                                      std::tuple{"sim:gfx1201", "gfx1201", "12.0.1", 64}}) {
    SCOPED_TRACE(dev);
    std::ostringstream o, e;
    cli::Io io{o, e};
    const std::vector<std::string> text = {"info", dev}, json = {"info", dev, "--json"};
    ASSERT_EQ(cli::main("rawgpu", cmds, text, io), 0) << e.str();
    EXPECT_NE(o.str().find(target), std::string::npos) << o.str();
    EXPECT_NE(o.str().find(std::string("GC      ") + gc), std::string::npos) << o.str();
    EXPECT_NE(o.str().find(std::to_string(cus) + " CUs"), std::string::npos) << o.str();
    std::ostringstream oj, ej;
    cli::Io ioj{oj, ej};
    ASSERT_EQ(cli::main("rawgpu", cmds, json, ioj), 0) << ej.str();
    auto v = llvm::json::parse(oj.str());
    ASSERT_TRUE(static_cast<bool>(v)) << oj.str();
    const llvm::json::Object* root = v->getAsObject();
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->getString("command").value_or(""), "info");
    EXPECT_EQ(root->getString("target").value_or(""), target);
    EXPECT_EQ(root->getInteger("vram_bytes").value_or(0), int64_t{1} << 30);
    const llvm::json::Object* disc = root->getObject("discovery");
    ASSERT_NE(disc, nullptr);
    const llvm::json::Array* ips = disc->getArray("ips");
    ASSERT_NE(ips, nullptr);
    EXPECT_EQ(ips->size(), 9u);
    EXPECT_EQ((*ips)[0].getAsObject()->getString("version").value_or(""), gc);
    EXPECT_EQ(disc->getObject("gc_info")->getInteger("cus").value_or(0), cus);
  }
  std::ostringstream o, e;
  cli::Io io{o, e};
  const std::vector<std::string> bad = {"info", "sim:gfx9000"};
  EXPECT_EQ(cli::main("rawgpu", cmds, bad, io), 1);
  EXPECT_NE(e.str().find("sim:gfx1100"), std::string::npos) << e.str();
}

}  // namespace
}  // namespace rawgpu

namespace rawgpu {
namespace {

std::pair<int, std::string> run_cli(std::vector<std::string> argv, std::string* err = nullptr) {
  std::vector<cli::Command> cmds = tools::all_commands();
  std::ostringstream o, e;
  cli::Io io{o, e};
  const int rc = cli::main("rawgpu", cmds, argv, io);
  if (err) *err = e.str();
  return {rc, o.str()};
}

// `rawgpu regs`: names resolve through the board's discovery table to the generated tables
// and the discovered bases; a field write is read-modify-write; bad names and values fail.
TEST(RawgpuBoot, ColdThenWarmStepsJsonAndTrace) {
  std::string err;
  auto [rc, out] = run_cli({"boot", "sim:gfx1100", "--twice"}, &err);
  ASSERT_EQ(rc, 0) << err;
  EXPECT_NE(out.find("PSP   bootloader SOS"), std::string::npos) << out;
  EXPECT_NE(out.find("cold boot of gfx1100"), std::string::npos) << out;
  EXPECT_NE(out.find("warm boot of gfx1100"), std::string::npos) << out;
  EXPECT_NE(out.find("skipped (warm)"), std::string::npos) << out;
  std::tie(rc, out) = run_cli({"boot", "sim:gfx1201", "--json"}, &err);
  ASSERT_EQ(rc, 0) << err;
  auto v = llvm::json::parse(out);
  ASSERT_TRUE(static_cast<bool>(v)) << out;
  const llvm::json::Array* boots = v->getAsObject()->getArray("boots");
  ASSERT_NE(boots, nullptr);
  ASSERT_EQ(boots->size(), 1u);
  const llvm::json::Object* b = (*boots)[0].getAsObject();
  EXPECT_EQ(b->getString("kind").value_or(""), "cold");
  EXPECT_GT(b->getArray("steps")->size(), 20u);
  EXPECT_EQ(b->getArray("firmware")->size(), 8u);
  std::tie(rc, out) = run_cli({"trace-boot", "sim:gfx1100"}, &err);
  ASSERT_EQ(rc, 0) << err;
  EXPECT_NE(out.find("MP0_SMN_C2PMSG_35 = 0x00020000"), std::string::npos);  // SOS to the PSP
  EXPECT_NE(out.find("SCRATCH_REG7 = 0xa0000001"), std::string::npos);       // the stamp
  EXPECT_EQ(run_cli({"trace-boot", "amd:0000:03:00.0"}, &err).first, 2);
  EXPECT_EQ(run_cli({"boot", "sim:gfx1100", "--firmware", "/nonexistent"}, &err).first, 1);
  EXPECT_NE(err.find("firmware-amd-graphics"), std::string::npos) << err;
}

TEST(RawgpuBench, BootColdAndWarm) {
  std::string err;
  auto [rc, out] = run_cli({"bench", "boot", "--repeats", "3", "--json"}, &err);
  ASSERT_EQ(rc, 0) << err;
  auto v = llvm::json::parse(out);
  ASSERT_TRUE(static_cast<bool>(v)) << out;
  const llvm::json::Object* warm = v->getAsObject()->getObject("warm");
  ASSERT_NE(warm, nullptr);
  EXPECT_EQ(warm->getString("kind").value_or(""), "warm");
  EXPECT_GT(warm->getInteger("mmio_writes").value_or(0), 0);
  EXPECT_EQ(v->getAsObject()->getObject("cold")->getString("kind").value_or(""), "cold");
}

TEST(RawgpuRegs, ReadWriteByNameAndField) {
  std::string err;
  auto [rc, out] =
      run_cli({"regs", "sim:gfx1201", "read", "regRCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE"}, &err);
  ASSERT_EQ(rc, 0) << err;
  EXPECT_NE(out.find("NBIF[0] RCC_DEV0_EPF0_RCC_CONFIG_MEMSIZE (nbif_6_3_1) dword 0xde3 = "
                     "0x00000400"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("CONFIG_MEMSIZE=0x400"), std::string::npos) << out;
  std::tie(rc, out) = run_cli(
      {"regs", "sim:gfx1100", "write", "GC:GCVM_CONTEXT0_CNTL.PAGE_TABLE_DEPTH", "3"}, &err);
  ASSERT_EQ(rc, 0) << err;
  EXPECT_NE(out.find("0x00000000 -> GCVM_CONTEXT0_CNTL.PAGE_TABLE_DEPTH = 0x3"), std::string::npos)
      << out;
  std::tie(rc, out) =
      run_cli({"regs", "sim:gfx1100", "read", "GCVM_CONTEXT0_CNTL", "--json"}, &err);
  ASSERT_EQ(rc, 0) << err;
  auto v = llvm::json::parse(out);
  ASSERT_TRUE(static_cast<bool>(v)) << out;
  EXPECT_EQ(v->getAsObject()->getString("table").value_or(""), "gc_11_0_0");
  EXPECT_EQ(v->getAsObject()->getInteger("address").value_or(0), 0x1260 + 0x1688);
  EXPECT_EQ(run_cli({"regs", "sim:gfx1100", "read", "NO_SUCH_REG"}, &err).first, 1);
  EXPECT_NE(err.find("GC[0] (gc_11_0_0)"), std::string::npos) << err;
  EXPECT_EQ(
      run_cli({"regs", "sim:gfx1100", "write", "GCVM_CONTEXT0_CNTL.PAGE_TABLE_DEPTH", "9"}, &err)
          .first,
      1);
  EXPECT_NE(err.find("does not fit"), std::string::npos) << err;
  EXPECT_EQ(run_cli({"regs", "sim:gfx1100", "poke", "GCVM_CONTEXT0_CNTL"}).first, 2);
  EXPECT_EQ(run_cli({"regs", "sim:gfx1100", "write", "GCVM_CONTEXT0_CNTL"}).first, 2);
}

}  // namespace
}  // namespace rawgpu
