#include "rawgpu/compiler/ir.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <thread>

namespace rawgpu::compiler {
namespace {

TEST(Ir, InterningMakesStructuralEqualityIdentity) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  Ref a = x + 3;
  Ref b = x + 3;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(x + 4, a);
  EXPECT_NE(ctx.cint(3, DType::kInt32), ctx.cint(3, DType::kIndex));
  EXPECT_NE(ctx.make(Op::kAdd, DType::kIndex, {x, x}, Arg(), 1),
            ctx.make(Op::kAdd, DType::kIndex, {x, x}, Arg(), 0));
  EXPECT_NE(ctx.var("x", 0, 10), ctx.var("x", 0, 11));
  EXPECT_EQ(ctx.var("x", 0, 10), x);
  // Operand order matters structurally.
  Ref y = ctx.var("y", 0, 10);
  EXPECT_NE(x + y, y + x);
  const size_t before = ctx.num_nodes();
  for (int i = 0; i < 100; ++i) (void)(x + y);
  EXPECT_EQ(ctx.num_nodes(), before);
}

TEST(Ir, ArgsAreCopiedIntoTheArena) {
  Context ctx;
  Ref n;
  {
    std::vector<int64_t> tmp = {4, 5, 6};
    std::string name = "buffer_name_longer_than_sso_buffer";
    n = ctx.make(Op::kPermute, DType::kFloat32, {}, Arg::ints(tmp));
    Ref s = ctx.make(Op::kSpecial, DType::kIndex, {ctx.cint(8)}, Arg::str(name));
    tmp.assign({9, 9, 9});
    name.assign(name.size(), '?');
    EXPECT_EQ(s->arg().as_str(), "buffer_name_longer_than_sso_buffer");
  }
  ASSERT_EQ(n->arg().as_ints().size(), 3u);
  EXPECT_EQ(n->arg().as_ints()[0], 4);
  EXPECT_EQ(n->arg().as_ints()[2], 6);
  const int64_t again[] = {4, 5, 6};
  EXPECT_EQ(ctx.make(Op::kPermute, DType::kFloat32, {}, Arg::ints(again)), n);
}

TEST(Ir, FloatConstantsAreKeyedByBits) {
  Context ctx;
  EXPECT_NE(ctx.cfloat(0.0), ctx.cfloat(-0.0));
  EXPECT_EQ(ctx.cfloat(NAN), ctx.cfloat(NAN));
  // float32 constants are rounded to float32 first, so equal float32 values intern together.
  EXPECT_EQ(ctx.cfloat(0.1), ctx.cfloat(static_cast<float>(0.1)));
  EXPECT_NE(ctx.cfloat(0.1, DType::kFloat64), ctx.cfloat(static_cast<float>(0.1), DType::kFloat64));
  EXPECT_EQ(ctx.cfloat(1.0 / 3, DType::kFloat16)->arg().as_float(), 0.333251953125);
}

TEST(Ir, HashIsStableAcrossContextsAndSensitive) {
  auto build = [](Context& c) {
    Ref i = c.range(16, 0);
    Ref j = c.range(c.var("n", 1, 64), 1);
    return where(cmplt(i * 4 + j, 50), i * 4 + j, c.invalid());
  };
  Context a, b;
  (void)b.cint(12345);  // different ids/addresses in b
  (void)b.var("zzz", 0, 1);
  Ref ra = build(a), rb = build(b);
  EXPECT_EQ(ra->hash(), rb->hash());
  EXPECT_NE(ra->id(), rb->id());
  EXPECT_EQ(ra->hash().hex().size(), 32u);
  // Every distinct node of a varied set has a distinct hash.
  Context c;
  std::set<std::pair<uint64_t, uint64_t>> seen;
  size_t count = 0;
  Ref x = c.var("x", 0, 100);
  for (int k = -50; k < 50; ++k) {
    for (Ref n : {x + k, x * k, x / (k == 0 ? 1 : k), cmplt(x, k), c.cint(k),
                  c.cint(k, DType::kInt32), c.cfloat(k), max(x, c.cint(k))}) {
      seen.insert({n->hash().lo, n->hash().hi});
      ++count;
    }
  }
  EXPECT_EQ(seen.size(), c.num_nodes() - 1);  // every node but x itself was in the set
  EXPECT_GE(count, seen.size());
}

TEST(Ir, BoundsOfBasicOps) {
  Context ctx;
  Ref x = ctx.var("x", -3, 7);
  Ref y = ctx.var("y", 2, 5);
  auto b = [](Ref n) { return std::pair<int64_t, int64_t>(n->vmin(), n->vmax()); };
  using P = std::pair<int64_t, int64_t>;
  EXPECT_EQ(b(x + y), P(-1, 12));
  EXPECT_EQ(b(x - y), P(-8, 5));
  EXPECT_EQ(b(x * y), P(-15, 35));
  EXPECT_EQ(b(x * -2), P(-14, 6));
  EXPECT_EQ(b(x / 2), P(-1, 3));  // truncation: -3/2 = -1
  EXPECT_EQ(b(x / y), P(-1, 3));
  EXPECT_EQ(b(x % 4), P(-3, 3));
  EXPECT_EQ(b(y % 8), P(2, 5));
  EXPECT_EQ(b(max(x, y)), P(2, 7));
  EXPECT_EQ(b(cmplt(y, 2)), P(0, 0));
  EXPECT_EQ(b(cmplt(y, 6)), P(1, 1));
  EXPECT_EQ(b(cmplt(x, y)), P(0, 1));
  EXPECT_EQ(b(cmpne(y, 9)), P(1, 1));
  EXPECT_EQ(b(cmpeq(y, 9)), P(0, 0));
  EXPECT_EQ(b(ctx.range(10, 0)), P(0, 9));
  EXPECT_EQ(b(ctx.range(y, 0)), P(0, 4));
  EXPECT_EQ(b(where(cmplt(x, 0), y, x)), P(-3, 7));
  EXPECT_EQ(b(where(cmplt(y, 0), y, x)), P(-3, 7));  // condition is known false
  EXPECT_EQ(b(where(cmplt(y, 100), y, x)), P(2, 5));
  EXPECT_EQ(b(-x), P(-7, 3));
  // int32 arithmetic that could wrap falls back to the full dtype range.
  Ref big = ctx.var("big", 0, 2000000000, DType::kInt32);
  EXPECT_EQ(b(big + big), P(INT32_MIN, INT32_MAX));
  EXPECT_EQ(b(big + ctx.cint(1, DType::kInt32)), P(1, 2000000001));
  // Index arithmetic saturates instead of wrapping.
  Ref huge = ctx.var("h", 0, INT64_MAX);
  EXPECT_EQ(b(huge * huge), P(0, INT64_MAX));
  EXPECT_EQ(b(cast(big, DType::kInt8)), P(-128, 127));
  EXPECT_EQ(b(cast(y, DType::kInt8)), P(2, 5));
  EXPECT_EQ(b(cast(y, DType::kBool)), P(1, 1));
  Ref f = ctx.cfloat(1.5);
  EXPECT_EQ(b(f), P(INT64_MIN, INT64_MAX));
}

TEST(Ir, RangesAreOpenLoopsMinusClosed) {
  Context ctx;
  Ref r0 = ctx.range(4, 0), r1 = ctx.range(8, 1), r2 = ctx.range(3, 2);
  Ref e = r0 * 8 + r1;
  ASSERT_EQ(e->ranges().size(), 2u);
  EXPECT_EQ(e->ranges()[0], r0);
  EXPECT_EQ(e->ranges()[1], r1);
  Ref body = e + r2;
  Ref red = ctx.make(Op::kReduce, DType::kIndex, {body, r2}, Arg::op(Op::kAdd));
  ASSERT_EQ(red->ranges().size(), 2u);
  EXPECT_EQ(red->ranges()[0], r0);
  EXPECT_EQ(red->ranges()[1], r1);
  Ref end = ctx.make(Op::kEnd, DType::kVoid, {red, r0, r1});
  EXPECT_TRUE(end->ranges().empty());
  EXPECT_TRUE(ctx.cint(3)->ranges().empty());
}

TEST(Ir, DeepChainsToposortAndRangesIteratively) {
  Context ctx;
  Ref r = ctx.range(10, 0);
  Ref n = r;
  for (int i = 0; i < 100000; ++i) n = n + 1;
  const auto order = ctx.toposort(n);
  EXPECT_EQ(order.size(), 100003u);  // const 10, the range, the shared const 1, 100000 adds
  EXPECT_EQ(order.back(), n);
  std::vector<bool> seen(ctx.num_nodes());
  for (Ref o : order) {
    for (Ref s : o->src()) EXPECT_TRUE(seen[s->id()]);
    seen[o->id()] = true;
  }
  ASSERT_EQ(n->ranges().size(), 1u);
  EXPECT_EQ(n->ranges()[0], r);
  EXPECT_EQ(n->vmax(), 100009);
  EXPECT_FALSE(to_string(n).empty());
}

TEST(Ir, Printing) {
  Context ctx;
  Ref x = ctx.var("x", 0, 10);
  EXPECT_EQ(expr_string((x * 4 + 3) / 2), "(((x*4)+3)//2)");
  EXPECT_EQ(expr_string(where(cmplt(x, 5), x, ctx.invalid())), "where((x<5), x, Invalid)");
  const std::string listing = to_string(x + 1);
  EXPECT_NE(listing.find("ADD index"), std::string::npos) << listing;
  EXPECT_NE(listing.find("DEFINEVAR index [x[0, 10]]"), std::string::npos) << listing;
}

TEST(Ir, SeparateContextsOnSeparateThreads) {
  // The documented model: one Context per thread, no shared state between Contexts.
  std::vector<Hash128> hashes(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&hashes, t] {
      Context ctx;
      Ref x = ctx.var("x", 0, 100);
      Ref n = x;
      for (int i = 0; i < 20000; ++i) n = (n + i) % 97;
      hashes[t] = n->hash();
    });
  for (auto& th : threads) th.join();
  for (int t = 1; t < 4; ++t) EXPECT_EQ(hashes[t], hashes[0]);
}

}  // namespace
}  // namespace rawgpu::compiler
