// Errors are values: a message that carries its context, built up as the
// error travels outwards ("reading NT_FILE: note truncated").
#pragma once

#include <expected>
#include <string>

namespace ljcore {

struct Error {
	std::string message;

	// Prefix the message with what the caller was doing.
	Error context(const std::string &what) const { return Error{what + ": " + message}; }
};

template <typename T> using Expected = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string message)
{
	return std::unexpected(Error{std::move(message)});
}

} // namespace ljcore
