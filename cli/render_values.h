// Lua values as Lua people read them (tostring's forms, strings quoted
// with Lua escapes), and the locals and upvalues of a frame (--locals).
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "analyzer/model/value_model.h"

namespace ljcore {

// One value on one line: "nil", "1.5", "\"abc\"... (len 300)",
// "table: 0x... (array 3, hash 0) {[1] = 1, ...}".
std::string render_value(const LuaValue &v);
// type() of the value ("unreadable" when it could not be read).
const char *value_type_name(const LuaValue &v);

// One line per local, then per upvalue ("upvalue name = value"), each
// after indent.
void render_frame_variables(std::ostream &out, const FrameVariables &vars,
			    const std::string &indent);

// Adds "locals" and "upvalues" ({name, kind, type, value, address}) to a
// frame's JSON object, when --locals read them.
void add_frame_variables_json(nlohmann::json &frame, const FrameVariables &vars);

} // namespace ljcore
