// ljcore print's output: EXPR = value per VM (text), or JSON.
#pragma once

#include <ostream>

#include "analyzer/model/analysis.h"

namespace ljcore {

// The value in each VM on out, why there is none on err.
void render_printed(std::ostream &out, std::ostream &err, const Analysis &a);
// {schema_version, source, expression, vms: [{global_state, root, slot,
// found, type, value, address | error}], problems}
void render_printed_json(std::ostream &out, const Analysis &a);
// Whether every VM found had a value for the expression.
bool printed_everywhere(const Analysis &a);

} // namespace ljcore
