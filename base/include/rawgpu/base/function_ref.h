// FunctionRef: a non-owning reference to a callable (like llvm::function_ref), so non-template
// code can take callbacks without std::function's allocation.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace rawgpu {

template <class Fn>
class FunctionRef;

template <class Ret, class... Params>
class FunctionRef<Ret(Params...)> {
 public:
  template <class Callable>
    requires(!std::is_same_v<std::remove_cvref_t<Callable>, FunctionRef> &&
             std::is_invocable_r_v<Ret, Callable&, Params...>)
  FunctionRef(Callable&& callable)  // NOLINT: implicit by design
      : callback_(&call<std::remove_reference_t<Callable>>),
        callable_(reinterpret_cast<intptr_t>(&callable)) {}

  Ret operator()(Params... params) const {
    return callback_(callable_, std::forward<Params>(params)...);
  }

 private:
  template <class Callable>
  static Ret call(intptr_t callable, Params... params) {
    return (*reinterpret_cast<Callable*>(callable))(std::forward<Params>(params)...);
  }
  Ret (*callback_)(intptr_t, Params...);
  intptr_t callable_;
};

}  // namespace rawgpu
