#include "rawgpu/drivers/nv/ptx_image.h"

#include <cstring>

namespace rawgpu::nv {

namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}
uint32_t get32(std::span<const uint8_t> b, size_t off) {
  uint32_t v;
  std::memcpy(&v, b.data() + off, 4);
  return v;
}

}  // namespace

std::vector<uint8_t> make_ptx_image(std::string_view kernel, std::string_view ptx) {
  std::vector<uint8_t> out(kPtxImageHeaderBytes + kernel.size() + ptx.size());
  const uint32_t head[4] = {kPtxImageMagic, 1, static_cast<uint32_t>(kernel.size()),
                            static_cast<uint32_t>(ptx.size())};
  const uint64_t hash = fnv1a(ptx);
  std::memcpy(out.data(), head, 16);
  std::memcpy(out.data() + 16, &hash, 8);
  std::memcpy(out.data() + kPtxImageHeaderBytes, kernel.data(), kernel.size());
  std::memcpy(out.data() + kPtxImageHeaderBytes + kernel.size(), ptx.data(), ptx.size());
  return out;
}

Result<uint64_t> ptx_image_size(std::span<const uint8_t> h) {
  if (h.size() < kPtxImageHeaderBytes) {
    return make_error(Errc::kParse, "PTX image header: %zu bytes, needs %u", h.size(),
                      kPtxImageHeaderBytes);
  }
  if (get32(h, 0) != kPtxImageMagic) {
    return make_error(Errc::kParse,
                      "no PTX image at the program address (magic 0x%08x): this GPU executes "
                      "PTX images, not SASS",
                      get32(h, 0));
  }
  if (get32(h, 4) != 1) return make_error(Errc::kParse, "PTX image version %u", get32(h, 4));
  const uint64_t total = uint64_t{kPtxImageHeaderBytes} + get32(h, 8) + get32(h, 12);
  if (get32(h, 8) == 0 || total > kPtxImageMaxBytes) {
    return make_error(Errc::kParse, "PTX image of %llu bytes (name %u bytes)",
                      static_cast<unsigned long long>(total), get32(h, 8));
  }
  return total;
}

Result<PtxImage> parse_ptx_image(std::span<const uint8_t> b) {
  const uint64_t total = RG_TRY(ptx_image_size(b));
  if (b.size() < total) {
    return make_error(Errc::kParse, "PTX image truncated: %zu of %llu bytes", b.size(),
                      static_cast<unsigned long long>(total));
  }
  PtxImage img;
  const uint32_t n = get32(b, 8), p = get32(b, 12);
  img.kernel = std::string_view(reinterpret_cast<const char*>(b.data()) + kPtxImageHeaderBytes, n);
  img.ptx = std::string_view(reinterpret_cast<const char*>(b.data()) + kPtxImageHeaderBytes + n, p);
  std::memcpy(&img.hash, b.data() + 16, 8);
  if (fnv1a(img.ptx) != img.hash) {
    return make_error(Errc::kParse, "PTX image of kernel %.*s: the text does not match its hash",
                      static_cast<int>(n), img.kernel.data());
  }
  return img;
}

}  // namespace rawgpu::nv
