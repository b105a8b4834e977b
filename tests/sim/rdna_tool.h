// Test helpers for the RDNA emulator: assembling with llvm-mc-19 at test time (SKIPPED without
// it), and a harness that runs code on a simulated GPU.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "rawgpu/sim/amd_gpu.h"
#include "rawgpu/sim/rdna.h"

namespace rawgpu::sim::rdna::testing {

inline bool have_tool(const char* name) {
  return std::system((std::string("command -v ") + name + " >/dev/null 2>&1").c_str()) == 0;
}

// Runs a shell command, returns stdout (nullopt on a non-zero exit).
inline std::optional<std::string> run(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return std::nullopt;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0) return std::nullopt;
  return out;
}

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/rdna_test_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { (void)std::system(("rm -rf " + path).c_str()); }
  std::string file(const std::string& name, const std::string& text) const {
    const std::string p = path + "/" + name;
    std::ofstream(p) << text;
    return p;
  }
};

// Assembles `text` with llvm-mc-19 --show-encoding; returns one byte vector per instruction (in
// order), or nullopt if llvm-mc fails.
inline std::optional<std::vector<std::vector<uint8_t>>> assemble_each(
    Target t, const std::string& text, std::string* errors = nullptr) {
  TempDir dir;
  const std::string in = dir.file("in.s", text);
  const std::string err = dir.path + "/err.txt";
  auto out = run("llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=" + std::string(target_name(t)) +
                 " --show-encoding " + in + " 2>" + err);
  if (errors) {
    std::ifstream f(err);
    std::stringstream ss;
    ss << f.rdbuf();
    *errors = ss.str();
  }
  if (!out) return std::nullopt;
  std::vector<std::vector<uint8_t>> insts;
  std::istringstream lines(*out);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t e = line.find("encoding: [");
    if (e == std::string::npos) continue;
    std::vector<uint8_t> bytes;
    const char* p = line.c_str() + e + 11;
    while (*p && *p != ']') {
      bytes.push_back(static_cast<uint8_t>(std::strtoul(p, const_cast<char**>(&p), 16)));
      if (*p == ',') ++p;
    }
    insts.push_back(std::move(bytes));
  }
  return insts;
}

// Assembles a program to its .text bytes (labels resolved): llvm-mc-19 -filetype=obj, then
// llvm-objcopy-19 -O binary.
inline std::optional<std::vector<uint32_t>> assemble(Target t, const std::string& text) {
  TempDir dir;
  const std::string in = dir.file("in.s", text);
  const std::string obj = dir.path + "/in.o", bin = dir.path + "/in.bin";
  auto out = run("llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=" + std::string(target_name(t)) +
                 " -filetype=obj -o " + obj + " " + in +
                 " 2>&1 && llvm-objcopy-19 -O binary "
                 "--only-section=.text " +
                 obj + " " + bin + " 2>&1");
  if (!out) {
    fprintf(stderr, "assembling failed:\n%s\n", text.c_str());
    return std::nullopt;
  }
  std::ifstream f(bin, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<uint32_t> words(bytes.size() / 4);
  std::memcpy(words.data(), bytes.data(), words.size() * 4);
  return words;
}

}  // namespace rawgpu::sim::rdna::testing
