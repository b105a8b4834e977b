// Spot checks: a generated value must equal the upstream macro it came from. Each TU includes
// one generated table, then the upstream offset/sh_mask headers of that IP version.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>

#define SPOT_REG_P(T, P, R)                                                        \
  do {                                                                             \
    EXPECT_EQ(T::R::kInfo.offset, static_cast<uint32_t>(P##R)) << #R;              \
    EXPECT_EQ(T::R::kInfo.base_idx, static_cast<uint32_t>(P##R##_BASE_IDX)) << #R; \
  } while (0)
#define SPOT_REG(T, R) SPOT_REG_P(T, reg, R)
#define SPOT_FIELD(T, R, F)                                                          \
  do {                                                                               \
    EXPECT_EQ(T::R::F.shift, static_cast<unsigned>(R##__##F##__SHIFT)) << #R "." #F; \
    EXPECT_EQ(T::R::F.mask(), static_cast<uint32_t>(R##__##F##_MASK)) << #R "." #F;  \
  } while (0)
