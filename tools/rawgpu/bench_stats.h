// Small helpers the `rawgpu bench` commands share: nanoseconds between two steady-clock points
// and the median of a sample.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace rawgpu::tools {

using BClock = std::chrono::steady_clock;

inline double ns_between(BClock::time_point a, BClock::time_point b) {
  return std::chrono::duration<double, std::nano>(b - a).count();
}

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace rawgpu::tools
