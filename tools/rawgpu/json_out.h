// One shape for every `--json` document the tool prints: an object whose first two members are
// "schema" (the version of these documents' layout, bumped when a member changes meaning or is
// removed) and "command" (the command that wrote it: "list", "bench tlsf"), then the command's
// own members. Never a bare array, never a different top-level shape per command.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace llvm::json {
class OStream;
}

namespace rawgpu::tools {

inline constexpr int kJsonSchema = 1;

// The document as text, with a trailing newline. `body` writes the command's members with
// j.attribute(...) / j.attributeArray(...) / j.attributeObject(...).
std::string json_document(std::string_view command,
                          const std::function<void(llvm::json::OStream& j)>& body);

}  // namespace rawgpu::tools
