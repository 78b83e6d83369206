// The deriver's machinery and its rules, one a Lua C API function (or a
// few of a kind), each in the file for what it reads: lua_state_rules.cpp,
// global_state_rules.cpp, object_rules.cpp, proto_rules.cpp,
// bcwrite_rules.cpp, table_rules.cpp, ffi_rules.cpp, jit_rules.cpp,
// cframe_rules.cpp, state_free_rules.cpp, gc_free_rules.cpp. Internal to
// analyzer/derive/.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "analyzer/derive/derive_layout.h"
#include "analyzer/derive/exported_code.h"
#include "analyzer/derive/value_tracker.h"
#include "analyzer/traces/disasm.h"

namespace ljcore {

// A function's code followed from its entry.
struct Traced {
	FunctionCode code;
	FunctionTrace trace;
	// The instructions the tracker decoded (direct_calls decodes the rest).
	LazyOperations::Decoded decoded;

	// "lua_close+0x31" for the instruction at addr.
	std::string at(uint64_t addr) const { return code.at(addr); }
	// Whether v is the base of an access or an argument of a call later on:
	// a pointer the function follows, not a number it only compares.
	bool followed(const TrackedValue &v) const
	{
		// Not an unknown value, whose argument 0 and empty path would
		// read as L itself.
		if (v.kind != TrackedValue::pointer)
			return false;
		auto same_object = [&](const TrackedValue &o) {
			return o.kind == TrackedValue::pointer && o.arg == v.arg &&
			       o.path == v.path;
		};
		return std::any_of(trace.accesses.begin(), trace.accesses.end(),
				   [&](const MemoryAccess &a) { return same_object(a.object); }) ||
		       std::any_of(trace.calls.begin(), trace.calls.end(), [&](const CallSite &c) {
			       return std::any_of(c.args.begin(), c.args.end(), same_object);
		       });
	}
};

// The first of t's accesses, in the order the tracker recorded them (the
// fall-through path first), for which pred holds; nullptr if none does.
template <class Pred> const MemoryAccess *first_access(const Traced &t, Pred pred)
{
	auto it = std::find_if(t.trace.accesses.begin(), t.trace.accesses.end(), pred);
	return it == t.trace.accesses.end() ? nullptr : &*it;
}

class Deriver {
public:
	Deriver(const ExportedCode &code, Disassembler &dis, DerivedLayout &out)
	    : code_(code), dis_(dis), out_(out)
	{
	}

	// The rules, in the order derive_layout runs them, by their file
	// (each says there what it reads): lua_state_rules.cpp
	void allocf();
	void close();
	void gettop();
	void status();
	void newthread();
	void stacksize();
	void openupval();

	// global_state_rules.cpp
	void gg_size();
	void resume();
	void error();
	void vmstates();

	// object_rules.cpp
	void userdata();
	void cclosure();
	void dump();
	void getlocal();
	void tolstring();
	void rawgeti();
	void getmetatable();
	void topointer();

	// proto_rules.cpp
	void getinfo();
	void getupvalue();

	// bcwrite_rules.cpp
	void proto_header();

	// table_rules.cpp
	void createtable();

	// ffi_rules.cpp
	void ctype_state();

	// jit_rules.cpp
	void jit_state();
	void fork();

	// cframe_rules.cpp
	void cframe();

	// state_free_rules.cpp
	void state_frees();

private:
	// Parts of the rules above.
	bool glref_from(const Traced &f);
	void new_globals(const Traced &t, const CallSite &alloc);
	bool udata_new(const Traced &t);
	void inlined_index2adr(const Traced &f, const std::string &fields, const std::string &why);
	void ctype_init(const Traced &t, const CallSite &alloc);
	void trace_fields(const Traced &t, const MemoryAccess &array);
	bool flushroot(const Traced &t, unsigned T);
	bool debug_line(const Traced &t);
	bool upvalue_name(const Traced &t, unsigned slot);
	void upvalue_array(const Traced &t, unsigned slot);
	bool new_table(const Traced &t);
	const CallSite *prototype_call(const Traced &dump);
	void bcwrite_proto(const Traced &t);
	bool close_buffers(const Traced &t, const std::vector<int64_t> &g);
	bool jit_buffers(const Traced &t, const std::vector<int64_t> &g);
	bool ctype_table(const Traced &t, const std::vector<int64_t> &g);
	void object_frees(const Traced &t, const std::vector<int64_t> &g);
	void trace_free(const Traced &t);
	void cdata_free(const Traced &t);

	std::optional<Traced> follow(const std::string &name);
	// bytes: how much of the callee to read (it has no symbol to say).
	std::optional<Traced> follow_call(const Traced &caller, const CallSite &call,
					  size_t bytes = 512);
	Traced follow(FunctionCode fn, TrackOptions options = {});
	// Calls found with each direct call in code, in address order, each
	// target once (without arguments), until it returns true; whether it
	// did. Also the calls on no path the tracker follows, such as a
	// switch's cases reached through a jump table; the code is decoded
	// only as far as the call found, going on from decoded.
	bool direct_calls(const FunctionCode &code, LazyOperations::Decoded decoded,
			  const std::function<bool(const CallSite &)> &found);
	void add(const std::string &name, uint32_t value, const std::string &source);
	void problem(const std::string &field, const std::string &why);
	void unshown(const std::string &field, const std::string &why);
	void add_ptrsize(uint8_t width, const std::string &source);

	const ExportedCode &code_;
	Disassembler &dis_;
	DerivedLayout &out_;
	std::optional<int64_t> glref_;
	std::optional<Traced> dump_;        // lua_dump as dump() followed it
	std::optional<Traced> close_;       // lua_close as close() followed it
	std::optional<Traced> createtable_; // lua_createtable as createtable() followed it
	uint8_t ptrsize_ = 0;
};

} // namespace ljcore
