// catch --redact: string values (locals, upvalues, table entries, the
// nginx request) shown as their lengths only, in the report and in the
// snapshot. The analysis reads no string's bytes for the report
// (ValueLimits::max_string 0); what is left to do is here: the requests'
// text in the report, and every copy of the redacted bytes in the memory
// snapshot.core keeps.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/model/analysis.h"
#include "readers/core_writer.h"
#include "readers/memory.h"

namespace ljcore::catching {

// What snapshot.core must not hold.
struct Redaction {
	// Written as zeros: the bytes of each redacted string object (address,
	// size), so a debugger still sees a string of its length.
	std::vector<std::pair<uint64_t, uint64_t>> objects;
	// Written as zeros wherever they are: copies of those strings (LuaJIT's
	// string buffer, strings made from them, C buffers), at least
	// min_searched bytes long.
	std::vector<std::string> texts;
	// How each nginx request's line starts ("GET /uri"): where nginx's
	// header buffer holds it, zeros up to the empty line after the
	// headers (a text with no NUL in it, as nginx read it).
	std::vector<std::string> requests;
	// Redacted strings not searched for: over the bytes the search holds.
	uint64_t not_searched = 0;
};

// Shorter strings are zeroed in their own objects only: a search for a
// few bytes would zero unrelated ones (names, pointers, code).
constexpr size_t min_searched = 8;

// Replaces the nginx requests' text in a with its length, and returns
// what the snapshot must lose; memory is the process's, where the strings'
// bytes are read for the search.
Redaction redact(Analysis &a, const Memory &memory);

// Writes zeros over what r names in the pieces of memory a snapshot keeps.
void scrub(std::vector<CorePiece> &pieces, const Redaction &r);

} // namespace ljcore::catching
