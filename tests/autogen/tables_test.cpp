// Structural checks over every generated register table (always run): sorted unique names,
// fields inside 32 bits, no two fields of a register overlapping, struct data == table data.
#include <gtest/gtest.h>

#include <span>
#include <string_view>

#include "rawgpu/autogen/amd/regs/all.h"

namespace {

using namespace rawgpu::autogen;

struct Table {
  const char* name;
  std::span<const RegDesc> regs;
};

#define RG_TABLE(v) \
  Table { #v, amd::v::kRegisters }
const Table kTables[] = {RG_AUTOGEN_AMD_REG_TABLES(RG_TABLE)};
#undef RG_TABLE

TEST(AutogenTables, SortedFieldsInsideAndDisjoint) {
  size_t regs = 0, fields = 0;
  for (const Table& t : kTables) {
    SCOPED_TRACE(t.name);
    ASSERT_FALSE(t.regs.empty());
    for (size_t i = 0; i < t.regs.size(); ++i) {
      const RegDesc& r = t.regs[i];
      if (i > 0) {
        EXPECT_LT(std::string_view(t.regs[i - 1].name), std::string_view(r.name));
      }
      EXPECT_EQ(find_reg(t.regs, r.name), &r);
      uint64_t used = 0;
      for (const FieldDesc& f : r.fields) {
        EXPECT_GE(f.width, 1) << r.name << "." << f.name;
        EXPECT_LE(f.shift + f.width, 32) << r.name << "." << f.name;
        const uint64_t m = ((uint64_t{1} << f.width) - 1) << f.shift;
        EXPECT_EQ(used & m, 0u) << r.name << "." << f.name << " overlaps another field";
        used |= m;
        ++fields;
      }
      ++regs;
    }
  }
  EXPECT_GT(regs, 1000u);
  EXPECT_GT(fields, 5000u);
}

TEST(AutogenTables, TypedStructsMatchTables) {
  using R = amd::gc_12_0_0::CP_HQD_PQ_CONTROL;
  const RegDesc* d = find_reg(amd::gc_12_0_0::kRegisters, "CP_HQD_PQ_CONTROL");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->offset, R::offset());
  const FieldDesc* f = d->field("QUEUE_SIZE");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->shift, R::QUEUE_SIZE.shift);
  EXPECT_EQ(f->width, R::QUEUE_SIZE.width);
}

}  // namespace
