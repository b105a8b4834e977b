// Fuzz target for tensor-graph shapes and the scheduler: the input bytes build a tensor graph
// from user-style shapes and op arguments (often invalid: wrong element counts, bad axes,
// out-of-range shrinks, mismatched ALU shapes). Invariants beyond "no crash":
//   - the tensor-stage spec rejects every graph with a shapeless node (and names a problem);
//   - a graph that passes the spec schedules, and every kernel AST lowers and linearizes (so
//     each access is in bounds or masked, each loop balanced);
//   - the memory plan keeps simultaneously live intermediates apart and inside the arena.
// Nothing is compiled or run (the JIT is too slow for fuzzing; the op tests run kernels).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "rawgpu/compiler/linearize.h"
#include "rawgpu/compiler/schedule.h"
#include "rawgpu/compiler/spec.h"

namespace {
using namespace rawgpu::compiler;

void require(bool cond, const char* what) {
  if (!cond) {
    std::fprintf(stderr, "fuzz_tensor_graph invariant violated: %s\n", what);
    std::abort();
  }
}

struct Bytes {
  const uint8_t* p;
  size_t n;
  uint8_t next() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  int64_t range(int64_t lo, int64_t hi) { return lo + next() % (hi - lo + 1); }
};

std::vector<int64_t> dims(Ref n) {
  auto s = n->shape();
  return s ? std::vector<int64_t>(s->begin(), s->end()) : std::vector<int64_t>{2, 2};
}

Ref build(Context& ctx, Bytes& in) {
  std::vector<Ref> pool;
  const int nbuf = int(in.range(1, 3));
  for (int i = 0; i < nbuf; ++i) {
    const int64_t n = in.range(0, 24);
    Ref b = tensor_buffer(ctx, in.next() % 2 ? DType::kFloat32 : DType::kInt32, i + 1, n);
    // a valid 2-d view when possible
    const int64_t r = n > 0 && n % 2 == 0 ? 2 : 1;
    pool.push_back(tensor_reshape(b, std::vector<int64_t>{r, n / r}));
  }
  const int steps = int(in.range(1, 12));
  for (int s = 0; s < steps && in.n > 0; ++s) {
    Ref x = pool[in.next() % pool.size()];
    const auto d = dims(x);
    const bool valid = in.next() % 4 != 0;  // mostly arguments derived from the shape
    std::vector<int64_t> a;
    Ref out;
    switch (in.next() % 10) {
      case 0: {  // reshape
        int64_t total = 1;
        for (int64_t v : d) total *= v;
        if (valid) {
          const int64_t f = in.range(1, 4);
          a = total % f == 0 ? std::vector<int64_t>{f, total / f} : std::vector<int64_t>{total};
        } else {
          a = {in.range(-1, 6), in.range(0, 6)};
        }
        out = tensor_reshape(x, a);
        break;
      }
      case 1:  // permute
        for (size_t i = 0; i < d.size(); ++i) a.push_back(int64_t(d.size() - 1 - i));
        if (!valid && !a.empty()) a[0] = in.range(-1, 4);
        out = tensor_permute(x, a);
        break;
      case 2:  // expand a 1
        a = d;
        for (auto& v : a)
          if (v == 1 || !valid) v = in.range(0, 5);
        out = tensor_expand(x, a);
        break;
      case 3:  // pad
        for (size_t i = 0; i < d.size(); ++i) {
          a.push_back(valid ? in.range(0, 3) : in.range(-2, 3));
          a.push_back(valid ? in.range(0, 3) : in.range(-2, 3));
        }
        out = tensor_pad(
            x, a,
            ctx.cconst(double(x->dtype() == DType::kBool ? in.range(0, 1) : in.range(-3, 3)),
                       x->dtype()));
        break;
      case 4:  // shrink
        for (int64_t v : d) {
          const int64_t b = valid ? in.range(0, v) : in.range(-1, 6);
          a.push_back(b);
          a.push_back(valid ? in.range(b, v) : in.range(0, 6));
        }
        out = tensor_shrink(x, a);
        break;
      case 5:  // flip
        for (size_t i = 0; i < d.size(); ++i) a.push_back(in.next() % 2);
        if (!valid) a.push_back(1);
        out = tensor_flip(x, a);
        break;
      case 6: {  // reduce
        const int64_t ax =
            valid && !d.empty() ? in.range(0, int64_t(d.size()) - 1) : in.range(-1, 3);
        a = {ax};
        const Op ops[] = {Op::kAdd, Op::kMax, Op::kMul};
        out = tensor_reduce(x, ops[in.next() % 3], a);
        break;
      }
      case 7: {  // binary with another pool entry
        Ref y = pool[in.next() % pool.size()];
        if (y->dtype() != x->dtype()) y = cast(y, x->dtype());
        const Op ops[] = {Op::kAdd, Op::kMul, Op::kMax, Op::kSub};
        out = ctx.make(ops[in.next() % 4], x->dtype(), {x, y});
        break;
      }
      case 8:
        out = in.next() % 2 ? tensor_contiguous(x) : ctx.make(Op::kCmpLt, DType::kBool, {x, x});
        break;
      default: {  // broadcast a reduced value back (reduce, expand): forces a realize
        if (d.empty()) {
          out = x;
          break;
        }
        const int64_t ax = int64_t(d.size()) - 1;
        a = {ax};
        Ref r = tensor_reduce(x, Op::kMax, a);
        out = ctx.make(Op::kAdd, x->dtype(), {x, tensor_expand(r, d)});
        break;
      }
    }
    pool.push_back(out);
  }
  return pool.back();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Context ctx;
  Bytes in{data, size};
  Ref root = build(ctx, in);
  bool all_shaped = true;
  for (Ref n : ctx.toposort(root))
    if (!n->shape()) all_shaped = false;
  const auto st = verify(root, Stage::kTensor);
  require(all_shaped || !st.ok(), "the spec accepted a node without a shape");
  if (!st.ok()) {
    require(!tensor_shape_problem(root).empty(), "no problem named for a shapeless graph");
    return 0;
  }
  Ref roots[] = {root};
  auto s = schedule(roots);
  require(s.ok(), "a spec-clean tensor graph failed to schedule");
  for (const KernelCall& k : s->kernels) {
    auto p = linearize(k.ast);
    if (!p.ok())
      std::fprintf(stderr, "%s\ntensor graph:\n%s\nkernel:\n%s\n", p.error().to_string().c_str(),
                   to_string(root).c_str(), to_string(k.ast).c_str());
    require(p.ok(), "a scheduled kernel does not linearize");
  }
  for (size_t i = 0; i < s->intermediates.size(); ++i) {
    const int64_t bytes = shape_numel(*s->intermediates[i]->shape()) *
                          int64_t(itemsize(s->intermediates[i]->dtype()));
    require(s->offsets[i] + uint64_t(bytes) <= s->arena_bytes, "intermediate outside the arena");
  }
  return 0;
}
