#include "json_out.h"

#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

namespace rawgpu::tools {

std::string json_document(std::string_view command,
                          const std::function<void(llvm::json::OStream& j)>& body) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", kJsonSchema);
    j.attribute("command", llvm::StringRef(command.data(), command.size()));
    body(j);
  });
  os << "\n";
  os.flush();
  return out;
}

}  // namespace rawgpu::tools
