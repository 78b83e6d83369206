// Lua values and the variables holding them, as plain data: what the
// reader (lua_values.h) found, for renderers to print.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ljcore {

// How much of a value is read.
struct ValueLimits {
	uint32_t max_string = 200; // bytes of a string kept
	uint32_t depth = 1;        // levels of table entries read
	uint32_t max_items = 10;   // entries read per table
};

struct TableEntry;

// One value. Which fields mean something depends on type.
struct LuaValue {
	enum class Type : uint8_t {
		nil,
		boolean,
		number,  // a double
		integer, // an LJ_DUALNUM integer
		lightuserdata,
		string,
		table,
		function,
		thread,
		userdata,
		cdata,
		unreadable, // address: where the read failed
		lost,       // a trace kept it where the core has nothing: why says where
	};
	Type type = Type::nil;
	bool boolean = false;
	double number = 0;
	int32_t integer = 0;
	uint64_t address = 0; // the GC object, lightuserdata's pointer

	// string: its bytes, at most ValueLimits::max_string of them.
	std::string bytes;
	uint32_t length = 0; // string length, userdata size

	// table, userdata
	uint64_t metatable = 0;
	uint32_t array_size = 0; // table: array part slots (asize)
	uint32_t hash_size = 0;  // table: hash part nodes
	bool expanded = false;   // table: entries were read (within depth)
	bool more = false;       // table: entries beyond max_items
	bool cycle = false;      // table: already being expanded further out
	std::vector<TableEntry> entries;

	// function: 0 Lua, 1 C, larger a builtin (fast function id).
	uint32_t ffid = 0;
	std::string where; // Lua: "file.lua:LINE"; C: its symbol if known;
			   // builtin: its name in the libraries ("string.format")
	// thread: coroutine.status()'s word.
	std::string status;
	// cdata: ctype id, and the value of a number-like ctype.
	uint16_t ctypeid = 0;
	enum class Scalar : uint8_t { none, i64, u64, f64, boolean, pointer } scalar = Scalar::none;
	uint64_t scalar_bits = 0; // i64/u64/pointer/boolean; f64 as a double's bits
	uint16_t pointee = 0;     // pointer: the ctype id it points to
	std::string why;          // lost: why the value is not known
	uint64_t raw = 0;         // the TValue it was read from (top-level values)
};

struct TableEntry {
	LuaValue key;
	LuaValue value;
};

// A local, vararg, temporary or upvalue of a frame.
struct Variable {
	std::string name;  // as debug.getlocal / debug.getupvalue name it
	std::string kind;  // "local", "vararg", "temporary", "upvalue"
	uint64_t slot = 0; // the TValue: a stack slot, or where the upvalue points
	LuaValue value;
};

// What --locals adds to a Lua frame.
struct FrameVariables {
	bool read = false;            // --locals looked at this frame (a Lua frame)
	std::vector<Variable> locals; // debug.getlocal order, varargs last
	std::vector<Variable> upvalues;
	std::string note; // why there are none, when that is not the program's doing
};

// What `ljcore print EXPR` found in one VM.
struct PrintedValue {
	std::string expression; // as given
	std::string root;       // what it starts from: "_G", "local 'tag' of frame 3", ...
	uint64_t slot = 0;      // the TValue of a local or upvalue root, 0 otherwise
	bool found = false;     // value holds the result; otherwise error says why
	LuaValue value;
	std::string error;
};

} // namespace ljcore
