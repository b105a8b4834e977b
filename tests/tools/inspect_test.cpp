// `rawgpu inspect` in-process: on a code object and a cubin the tool's own compiler writes
// (`rawgpu compile`; the cubin needs ptxas: SKIPPED without it), on a synthesized cubin (always),
// and on every kind of bad input, with the exit codes and messages users see.
#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../drivers/synth_elf.h"
#include "commands.h"
#include "rawgpu/cli.h"

namespace rawgpu {
namespace {

namespace fs = std::filesystem;

struct ToolRun {
  int rc = -1;
  std::string out, err;
};

ToolRun rawgpu_main(std::vector<std::string> argv) {
  static const std::vector<cli::Command> cmds = tools::all_commands();
  std::ostringstream o, e;
  cli::Io io{o, e};
  ToolRun r;
  r.rc = cli::main("rawgpu", cmds, argv, io);
  r.out = o.str();
  r.err = e.str();
  return r;
}

// A scratch directory for the whole test program, removed at exit.
const fs::path& scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("rawgpu-inspect-test-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  static const struct Cleanup {
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup;
  return dir;
}

void write(const fs::path& p, std::span<const uint8_t> bytes) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<uint8_t> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `rawgpu compile` for one example and target; the binary's path, or empty (with the reason).
fs::path compiled(const std::string& target, const std::string& example, const char* ext,
                  std::string* why) {
  const fs::path out = scratch() / "compile";
  const fs::path bin = out / target / example / (std::string("kernel.") + ext);
  if (fs::exists(bin)) return bin;
  ToolRun r =
      rawgpu_main({"compile", "--target", target, "--example", example, "-o", out.string()});
  if (r.rc != 0) {
    *why = "rawgpu compile failed: " + r.err;
    return {};
  }
  if (!fs::exists(bin)) {
    *why = "rawgpu compile wrote no " + bin.filename().string() + " (ptxas not installed?)";
    return {};
  }
  return bin;
}

llvm::json::Value parse_json(const std::string& text) {
  auto v = llvm::json::parse(text);
  if (!v) {
    ADD_FAILURE() << llvm::toString(v.takeError()) << "\n" << text;
    return nullptr;
  }
  return std::move(*v);
}

// The compiler's own view of the kernel (summary.json next to the binary).
llvm::json::Object summary(const fs::path& bin) {
  std::ifstream in(bin.parent_path() / "summary.json");
  std::stringstream ss;
  ss << in.rdbuf();
  llvm::json::Value v = parse_json(ss.str());
  return v.getAsObject() ? *v.getAsObject() : llvm::json::Object();
}

TEST(RawgpuInspect, CodeObjectTextAndJson) {
  std::string why;
  const fs::path co = compiled("gfx1100", "reduce_row", "co", &why);
  ASSERT_FALSE(co.empty()) << why;
  const llvm::json::Object s = summary(co);

  ToolRun text = rawgpu_main({"inspect", co.string()});
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.out.find("AMDGPU code object v5, target gfx1100"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("kernel reduce_row"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(
                strformat("LDS              %lld bytes", (long long)*s.getInteger("local_bytes"))),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("global_buffer"), std::string::npos) << text.out;

  ToolRun json = rawgpu_main({"inspect", "--json", co.string()});
  ASSERT_EQ(json.rc, 0) << json.err;
  llvm::json::Value v = parse_json(json.out);
  const llvm::json::Object* root = v.getAsObject();
  ASSERT_NE(root, nullptr) << json.out;
  EXPECT_EQ(json.out.find("{\n  \"schema\": 1,\n  \"command\": \"inspect\""), 0u) << json.out;
  EXPECT_EQ(root->getString("format"), std::optional<llvm::StringRef>("amdgpu_code_object"));
  EXPECT_EQ(root->getString("target"), std::optional<llvm::StringRef>("gfx1100"));
  const llvm::json::Array* kernels = root->getArray("kernels");
  ASSERT_NE(kernels, nullptr);
  ASSERT_EQ(kernels->size(), 1u);
  const llvm::json::Object& k = *(*kernels)[0].getAsObject();
  EXPECT_EQ(k.getString("name"), std::optional<llvm::StringRef>("reduce_row"));
  // Agrees with what the compiler says it built.
  EXPECT_EQ(k.getInteger("kernarg_bytes"), s.getInteger("kernarg_bytes"));
  EXPECT_EQ(k.getInteger("lds_bytes"), s.getInteger("local_bytes"));
  EXPECT_GT(*k.getInteger("lds_bytes"), 0);  // the group reduction goes through LDS
  EXPECT_EQ(k.getInteger("scratch_bytes"), s.getInteger("scratch_bytes"));
  EXPECT_EQ(k.getInteger("sgprs"), s.getInteger("sgprs"));
  EXPECT_EQ(k.getInteger("vgprs"), s.getInteger("vgprs"));
  EXPECT_EQ(k.getInteger("wavefront_size"), s.getInteger("wave"));
  const llvm::json::Array* args = k.getArray("kernargs");
  ASSERT_NE(args, nullptr);
  ASSERT_FALSE(args->empty());
  int64_t end = 0;
  for (const llvm::json::Value& a : *args) {
    const llvm::json::Object& ao = *a.getAsObject();
    EXPECT_TRUE(ao.getString("kind").has_value());
    end = std::max(end, *ao.getInteger("offset") + *ao.getInteger("size"));
  }
  EXPECT_LE(end, *k.getInteger("kernarg_bytes"));
  const llvm::json::Object* d = k.getObject("descriptor");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->getBoolean("kernarg_segment_ptr"), std::optional<bool>(true));
  EXPECT_EQ(d->getBoolean("wavefront_size32"), std::optional<bool>(true));

  // --kernel selects; an unknown name is a runtime error naming the file and the kernels.
  EXPECT_EQ(rawgpu_main({"inspect", "-k", "reduce_row", co.string()}).rc, 0);
  ToolRun nope = rawgpu_main({"inspect", "--kernel", "nope", co.string()});
  EXPECT_EQ(nope.rc, cli::kExitFailure);
  EXPECT_NE(nope.err.find("has no kernel named 'nope' (it has: reduce_row)"), std::string::npos)
      << nope.err;
}

TEST(RawgpuInspect, PtxasCubinTextAndJson) {
  std::string why;
  const fs::path cubin = compiled("sm_90", "reduce_row", "cubin", &why);
  if (cubin.empty()) {
    if (why.find("ptxas") != std::string::npos) GTEST_SKIP() << "SKIPPED: " << why;
    FAIL() << why;
  }
  const llvm::json::Object s = summary(cubin);
  ToolRun text = rawgpu_main({"inspect", cubin.string()});
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.out.find("NVIDIA cubin, target sm_90"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(strformat("registers       %lld per thread",
                                    (long long)*s.getInteger("registers"))),
            std::string::npos)
      << text.out;
  ToolRun json = rawgpu_main({"inspect", "--json", cubin.string()});
  ASSERT_EQ(json.rc, 0) << json.err;
  llvm::json::Value v = parse_json(json.out);
  const llvm::json::Object* root = v.getAsObject();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->getString("command"), std::optional<llvm::StringRef>("inspect"));
  EXPECT_EQ(root->getString("format"), std::optional<llvm::StringRef>("nvidia_cubin"));
  const llvm::json::Object& k = *(*root->getArray("kernels"))[0].getAsObject();
  EXPECT_EQ(k.getInteger("registers"), s.getInteger("registers"));
  EXPECT_EQ(k.getInteger("param_bytes"), s.getInteger("kernarg_bytes"));
  EXPECT_EQ(k.getInteger("param_offset"), s.getInteger("param_offset"));
  // The loader's view (what the compiler reports) includes sm_90's 1 KiB shared-memory reserve
  // on top of the group reduction's own array.
  EXPECT_EQ(k.getInteger("shared_bytes"), s.getInteger("local_bytes"));
  EXPECT_GT(*k.getInteger("shared_bytes"), 1024);
}

TEST(RawgpuInspect, SynthesizedCubin) {
  // Always available (no ptxas): the fields come from the .nv.info records synth_elf writes.
  const fs::path p = scratch() / "synth.cubin";
  write(p, rawgpu::testing::synth_cubin({3, 86}));
  ToolRun json = rawgpu_main({"inspect", "--json", p.string()});
  ASSERT_EQ(json.rc, 0) << json.err;
  llvm::json::Value v = parse_json(json.out);
  const llvm::json::Object* root = v.getAsObject();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->getString("target"), std::optional<llvm::StringRef>("sm_86"));
  const llvm::json::Array& ks = *root->getArray("kernels");
  ASSERT_EQ(ks.size(), 3u);
  const llvm::json::Object& k2 = *ks[2].getAsObject();
  EXPECT_EQ(k2.getString("name"), std::optional<llvm::StringRef>("k2"));
  EXPECT_EQ(k2.getInteger("registers"), std::optional<int64_t>(18));
  EXPECT_EQ(k2.getInteger("shared_bytes"), std::optional<int64_t>(256));
  EXPECT_EQ(k2.getInteger("param_offset"), std::optional<int64_t>(0x210));
  EXPECT_EQ(k2.getInteger("param_bytes"), std::optional<int64_t>(8));
  EXPECT_EQ((*k2.getArray("max_threads"))[0].getAsInteger(), std::optional<int64_t>(128));
  const llvm::json::Object& param = *(*k2.getArray("params"))[0].getAsObject();
  EXPECT_EQ(param.getInteger("size"), std::optional<int64_t>(8));
  ToolRun text = rawgpu_main({"inspect", "--kernel", "k1", p.string()});
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.out.find("kernel k1\n"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("kernel k2"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("max threads     128 x 1 x 1"), std::string::npos) << text.out;
}

// One bad input: exit code 1 and a message that names the file and what is wrong.
void expect_failure(const std::string& file, const std::string& what) {
  ToolRun r = rawgpu_main({"inspect", file});
  EXPECT_EQ(r.rc, cli::kExitFailure) << file << ": " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.find("rawgpu inspect: " + file), 0u) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << "expected '" << what << "' in: " << r.err;
}

TEST(RawgpuInspect, BadInputsAreClearErrors) {
  std::string why;
  const fs::path co = compiled("gfx1100", "elementwise", "co", &why);
  ASSERT_FALSE(co.empty()) << why;
  const fs::path dir = scratch() / "bad";
  fs::create_directories(dir);

  expect_failure((dir / "missing.co").string(),
                 "cannot open: No such file or directory [not_found]");
  expect_failure(dir.string(), "is a directory, not a file [invalid_argument]");
  std::ofstream(dir / "notes.txt") << "hello, not an ELF file\n";
  expect_failure((dir / "notes.txt").string(), "is not an ELF file (it starts with 68 65 6c 6c)");
  write(dir / "empty.co", {});
  expect_failure((dir / "empty.co").string(), "is empty [parse]");
  const std::vector<uint8_t> bytes = slurp(co);
  write(dir / "cut.co", std::span(bytes).first(200));
  expect_failure((dir / "cut.co").string(), "(AMDGPU code object): ");
  expect_failure((dir / "cut.co").string(), "[parse]");
  const std::vector<uint8_t> cubin = rawgpu::testing::synth_cubin({2, 90});
  write(dir / "cut.cubin", std::span(cubin).first(cubin.size() - 100));
  expect_failure((dir / "cut.cubin").string(), "(NVIDIA cubin): ");
  auto x86 = bytes;
  x86[18] = 62;  // EM_X86_64
  x86[19] = 0;
  write(dir / "host.o", x86);
  expect_failure((dir / "host.o").string(), "ELF file for machine 62, neither EM_AMDGPU");
  // Over the size cap: a sparse file, refused by its size before anything is read.
  {
    std::ofstream(dir / "huge.co").put('\x7f');
  }
  fs::resize_file(dir / "huge.co", tools::kMaxInspectBytes + 1);
  expect_failure((dir / "huge.co").string(), "is 1073741825 bytes; at most 1 GiB is read");
  fs::remove(dir / "huge.co");
  // No FILE: a usage error, before any work.
  ToolRun usage = rawgpu_main({"inspect"});
  EXPECT_EQ(usage.rc, cli::kExitUsage) << usage.err;
}

TEST(RawgpuInspect, ReadCapAppliesToStreamsToo) {
  // A character device has no size: the cap stops the read one byte past the limit.
  auto r = tools::read_binary_file("/dev/zero", 1 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), Errc::kOutOfRange);
  EXPECT_NE(r.error().message().find("/dev/zero is larger than that; at most 1 MiB is read"),
            std::string::npos)
      << r.error().to_string();
  auto ok = tools::read_binary_file("/dev/null", 1 << 20);
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  EXPECT_TRUE(ok->empty());
}

}  // namespace
}  // namespace rawgpu
