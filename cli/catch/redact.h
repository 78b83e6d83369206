// catch --redact: string values (locals, upvalues, table entries, the
// nginx request) shown as their lengths only, in the report and in the
// snapshot. The analysis reads no string's bytes (ValueLimits::max_string
// 0); what is left to do is here.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "analyzer/model/analysis.h"

namespace ljcore::catching {

// Replaces the nginx requests' text with its length, and returns where
// the bytes of every string value lie (address, size) for the snapshot
// to write as zeros.
std::vector<std::pair<uint64_t, uint64_t>> redact(Analysis &a);

} // namespace ljcore::catching
