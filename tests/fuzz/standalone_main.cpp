// Runs a libFuzzer target over files (the committed corpus) without libFuzzer, so every build
// (GCC included) replays the corpus as a regression test. Arguments: files or directories.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  size_t runs = 0;
  auto run_file = [&](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    ++runs;
  };
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      for (const auto& e : fs::recursive_directory_iterator(arg))
        if (e.is_regular_file()) run_file(e.path());
    } else {
      run_file(arg);
    }
  }
  LLVMFuzzerTestOneInput(nullptr, 0);
  std::printf("replayed %zu corpus input(s) without a failure\n", runs);
  return runs == 0 ? 1 : 0;
}
