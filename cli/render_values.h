// Lua values as Lua people read them (tostring's forms, strings quoted
// with Lua escapes), and the locals and upvalues of a frame (--locals).
#pragma once

#include <ostream>
#include <string>

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

class JsonWriter;
// A frame's "locals" and "locals_note", then (members come in name order,
// so apart) its "upvalues": lists of {address, kind, name, type, value},
// when --locals read them.
void write_frame_locals_json(JsonWriter &w, const FrameVariables &vars);
void write_frame_upvalues_json(JsonWriter &w, const FrameVariables &vars);

} // namespace ljcore
