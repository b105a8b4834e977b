// One shared CpuRuntime per test binary (JIT start-up is the expensive part). The options of the
// first call win; a runtime that cannot be created fails the test and ends the binary (nothing
// else in it can run).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "rawgpu/compiler/cpu.h"

namespace rawgpu::compiler::test_util {

inline CpuRuntime& shared_runtime(const CpuRuntimeOptions& options) {
  static std::unique_ptr<CpuRuntime> rt = [&] {
    auto r = CpuRuntime::create(options);
    if (!r.ok()) {
      ADD_FAILURE() << r.error().to_string();
      std::abort();
    }
    return std::move(r).take_value();
  }();
  return *rt;
}

}  // namespace rawgpu::compiler::test_util
