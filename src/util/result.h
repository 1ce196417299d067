// Result<T, E>: a value or an error. Parsers and clients return it instead of throwing.
// E defaults to Error, a message that names the field path or the offending input so a user can
// act on it; the API client uses it with client::ApiError (client::Result<T>), which carries the
// server's Status as well.
#pragma once
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace ksched::util {

struct Error {
  std::string message;
};

template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(E err) : v_(std::in_place_index<1>, std::move(err)) {}      // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  // The message of an Error; the error itself for other error types.
  decltype(auto) error() const {
    if constexpr (std::is_same_v<E, Error>) {
      return (std::get<1>(v_).message);
    } else {
      return (std::get<1>(v_));
    }
  }

 private:
  std::variant<T, E> v_;
};

template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  Result(E err) : err_(std::move(err)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return !err_.has_value(); }
  explicit operator bool() const { return ok(); }
  decltype(auto) error() const {
    if constexpr (std::is_same_v<E, Error>) {
      return (err_->message);
    } else {
      return (*err_);
    }
  }

 private:
  std::optional<E> err_;
};

inline Error make_error(std::string msg) { return Error{std::move(msg)}; }

}  // namespace ksched::util
