// Consistency of the hand-written NVIDIA data (compute classes and QMD layouts transcribed from
// open-gpu-doc): fields inside the structure, no overlaps, encode/decode round trips, offsets
// shared across classes, and a few layout facts quoted from the documentation.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rawgpu/autogen/nv/compute_classes.h"
#include "rawgpu/autogen/nv/qmd.h"
#include "rawgpu/autogen/nv/qmd_v04.h"

namespace {

using namespace rawgpu;
using namespace rawgpu::autogen::nv;
using qmd::QmdField;

struct Instance {
  std::string name;
  BitField f;
};

std::vector<Instance> instances(std::span<const QmdField> fields) {
  std::vector<Instance> out;
  for (const QmdField& q : fields)
    for (uint32_t i = 0; i < q.count; ++i)
      out.push_back(
          {std::string(q.name) + (q.stride ? "(" + std::to_string(i) + ")" : ""), q.at(i)});
  return out;
}

void check_layout(std::span<const QmdField> fields, uint32_t bytes) {
  const auto all = instances(fields);
  ASSERT_GT(all.size(), 100u);
  for (size_t a = 0; a < all.size(); ++a) {
    EXPECT_TRUE(all[a].f.valid()) << all[a].name;
    EXPECT_TRUE(all[a].f.fits_in(bytes / 4, 32)) << all[a].name << " ends at bit " << all[a].f.hi();
    for (size_t b = a + 1; b < all.size(); ++b)
      EXPECT_FALSE(all[a].f.overlaps(all[b].f)) << all[a].name << " overlaps " << all[b].name;
  }
}

template <size_t N>
void check_round_trips(std::span<const QmdField> fields) {
  for (const Instance& in : instances(fields)) {
    std::array<uint32_t, N> words{};
    const uint64_t max = in.f.max_value();
    set_bits(std::span<uint32_t>(words), in.f, max);
    EXPECT_EQ(get_bits(std::span<const uint32_t>(words), in.f), max) << in.name;
    unsigned pop = 0;
    for (uint32_t w : words) pop += static_cast<unsigned>(std::popcount(w));
    EXPECT_EQ(pop, in.f.width) << in.name << " wrote outside its bits";
    const uint64_t pattern = 0x5A5A5A5A5A5A5A5Aull & max;
    set_bits(std::span<uint32_t>(words), in.f, pattern);
    EXPECT_EQ(get_bits(std::span<const uint32_t>(words), in.f), pattern) << in.name;
  }
}

TEST(AutogenQmd, V03FieldsInside256BytesAndDisjoint) {
  EXPECT_EQ(qmd::v03::kBytes, 256u);
  check_layout(qmd::v03::kFields, qmd::v03::kBytes);
}

TEST(AutogenQmd, V05FieldsInside384BytesAndDisjoint) {
  EXPECT_EQ(qmd::v05::kBytes, 384u);
  check_layout(qmd::v05::kFields, qmd::v05::kBytes);
}

TEST(AutogenQmd, V04FieldsInside384BytesAndDisjoint) {
  EXPECT_EQ(qmd::v04::kBytes, 384u);
  check_layout(qmd::v04::kFields, qmd::v04::kBytes);
}

// open-gpu-doc clcbc0qmd.h: V04 keeps QMD_MAJOR_VERSION where V03 has it (583:580), so the front
// end tells the two apart; the fields nv.md's launch table names sit where the header says.
TEST(AutogenQmd, V04DocumentedPositions) {
  EXPECT_EQ(qmd::v04::QMD_MAJOR_VERSION.at(), qmd::v03::QMD_MAJOR_VERSION.at());
  EXPECT_EQ(qmd::v04::QMD_GROUP_ID.at(), (BitField::range(21, 16)));
  EXPECT_EQ(qmd::v04::QMD_TYPE.at(), (BitField::range(25, 23)));
  EXPECT_EQ(qmd::v04::GRID_WIDTH.at(), (BitField::range(1055, 1024)));
  EXPECT_EQ(qmd::v04::CTA_THREAD_DIMENSION2.at(), (BitField::range(1199, 1184)));
  EXPECT_EQ(qmd::v04::RELEASE_PAYLOAD64B.at(2), (BitField::range(364, 364)));
  EXPECT_EQ(qmd::v04::RELEASE_SEMAPHORE1_ADDR_UPPER.at(), (BitField::range(824, 800)));
  EXPECT_EQ(qmd::v04::CONSTANT_BUFFER_INVALIDATE.at(7), (BitField::range(447, 447)));
  EXPECT_EQ(qmd::v04::CONSTANT_BUFFER_SIZE_SHIFTED4.at(7), (BitField::range(2047, 2035)));
  EXPECT_EQ(qmd::v04::DEPENDENT_QMD_PREFETCH.at(1), (BitField::range(377, 377)));
  EXPECT_EQ(qmd::v04::PROGRAM_ADDRESS_UPPER.at(), (BitField::range(1272, 1248)));
  EXPECT_EQ(qmd::v04::SASS_VERSION.at(), (BitField::range(543, 536)));
  EXPECT_EQ(qmd::v04::OUTER_STICKY_OVERFLOW.hi(), 384u * 8 - 1);
}

TEST(AutogenQmd, RoundTrips) {
  check_round_trips<96>(qmd::v04::kFields);
  check_round_trips<64>(qmd::v03::kFields);
  check_round_trips<96>(qmd::v05::kFields);
}

// open-gpu-doc: QMD_MAJOR_VERSION is 583:580 in V03 and 471:468 in V05; V03 program address
// 1567:1536; constant buffer i size 1087+64i:1075+64i (V03) and 1407+64i:1395+64i (V05).
TEST(AutogenQmd, DocumentedPositions) {
  EXPECT_EQ(qmd::v03::QMD_MAJOR_VERSION.lo, 580u);
  EXPECT_EQ(qmd::v03::QMD_MAJOR_VERSION.hi(), 583u);
  EXPECT_EQ(qmd::v05::QMD_MAJOR_VERSION.lo, 468u);
  EXPECT_EQ(qmd::v05::QMD_MAJOR_VERSION.hi(), 471u);
  EXPECT_EQ(qmd::v03::PROGRAM_ADDRESS_LOWER.at(), (BitField::range(1567, 1536)));
  EXPECT_EQ(qmd::v03::CONSTANT_BUFFER_SIZE_SHIFTED4.at(2),
            (BitField::range(1087 + 128, 1075 + 128)));
  EXPECT_EQ(qmd::v05::CONSTANT_BUFFER_SIZE_SHIFTED4.at(1), (BitField::range(1407 + 64, 1395 + 64)));
  EXPECT_EQ(qmd::v05::RELEASE_ENABLE.count, 3u);
  // V05 documents the dependent-QMD slots twice (indexed and numbered): they must coincide.
  EXPECT_EQ(qmd::v05::DEPENDENT_QMD_POINTER.at(1), qmd::v05::DEPENDENT_QMD1_POINTER.at());
  EXPECT_EQ(qmd::v05::DEPENDENT_QMD_ENABLE.at(0), qmd::v05::DEPENDENT_QMD0_ENABLE.at());
  EXPECT_EQ(qmd::v05::DEPENDENT_QMD_ACTION.at(1), qmd::v05::DEPENDENT_QMD1_ACTION.at());
  EXPECT_EQ(qmd::v05::DEPENDENT_QMD_PREFETCH.at(0), qmd::v05::DEPENDENT_QMD0_PREFETCH.at());
  // A V03 QMD with major version 3 written through the table decodes as such.
  std::array<uint32_t, 64> q{};
  set_bits(std::span<uint32_t>(q), qmd::v03::QMD_MAJOR_VERSION.at(), 3);
  EXPECT_EQ(q[580 / 32], 3u << (580 % 32));
}

struct Cls {
  const char* name;
  std::span<const ClassMethod> methods;
  std::span<const ClassField> fields;
};
const Cls kClasses[] = {
    {"clc6c0", clc6c0::kMethods, clc6c0::kFields},
    {"clc7c0", clc7c0::kMethods, clc7c0::kFields},
    {"clc9c0", clc9c0::kMethods, clc9c0::kFields},
    {"clcbc0", clcbc0::kMethods, clcbc0::kFields},
};

const ClassMethod* owner(const Cls& c, std::string_view field) {
  const ClassMethod* best = nullptr;
  for (const ClassMethod& m : c.methods) {
    const std::string_view mn = m.name;
    if (field.size() > mn.size() && field.substr(0, mn.size()) == mn && field[mn.size()] == '_' &&
        (!best || mn.size() > std::string_view(best->name).size()))
      best = &m;
  }
  return best;
}

TEST(AutogenComputeClass, FieldsInsideMethodsAndDisjoint) {
  for (const Cls& c : kClasses) {
    SCOPED_TRACE(c.name);
    EXPECT_GE(c.methods.size(), 25u);
    for (const ClassMethod& m : c.methods) EXPECT_EQ(m.offset % 4, 0u) << m.name;
    for (size_t a = 0; a < c.fields.size(); ++a) {
      const ClassField& fa = c.fields[a];
      EXPECT_LE(fa.lo + fa.width, 32u) << fa.name;
      const ClassMethod* ma = owner(c, fa.name);
      ASSERT_NE(ma, nullptr) << fa.name << " belongs to no method";
      for (size_t b = a + 1; b < c.fields.size(); ++b) {
        const ClassField& fb = c.fields[b];
        if (owner(c, fb.name) != ma) continue;
        const BitField x{fa.lo, fa.width}, y{fb.lo, fb.width};
        EXPECT_FALSE(x.overlaps(y)) << fa.name << " overlaps " << fb.name;
      }
    }
  }
}

// open-gpu-doc: method offsets are the same in c6c0, c7c0, c9c0 and cbc0.
TEST(AutogenComputeClass, OffsetsSharedAcrossClasses) {
  for (const ClassMethod& m : kClasses[0].methods) {
    for (const Cls& c : kClasses) {
      bool found = false;
      for (const ClassMethod& o : c.methods)
        if (std::string_view(o.name) == m.name) {
          found = true;
          EXPECT_EQ(o.offset, m.offset) << c.name << " " << m.name;
        }
      EXPECT_TRUE(found) << c.name << " lacks " << m.name;
    }
  }
  EXPECT_EQ(clc6c0::NVC6C0_SEND_PCAS_A, 0x2b4u);
  EXPECT_EQ(clc9c0::NVC9C0_LOAD_INLINE_QMD_DATA(3), 0x320u + 12u);
  EXPECT_EQ(clcbc0::HOPPER_COMPUTE_A, 0xcbc0u);
  // Hopper narrows the inline QMD upper address to 9 bits and adds INLINE_SIZE at bit 30.
  EXPECT_EQ(clcbc0::NVCBC0_SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER.width, 9u);
  EXPECT_EQ(clcbc0::NVCBC0_SET_INLINE_QMD_ADDRESS_A_INLINE_SIZE.lo, 30u);
  EXPECT_EQ(clc6c0::NVC6C0_SET_INLINE_QMD_ADDRESS_A_QMD_ADDRESS_SHIFTED8_UPPER.width, 32u);
}

}  // namespace
