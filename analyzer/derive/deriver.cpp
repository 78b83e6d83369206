#include "analyzer/derive/deriver.h"

#include <algorithm>
#include <cstdio>

namespace ljcore {

std::optional<Traced> Deriver::follow(const std::string &name)
{
	auto fn = code_.function(name);
	if (!fn) {
		out_.problems.push_back("could not derive from " + fn.error().message);
		return std::nullopt;
	}
	return follow(std::move(*fn));
}

// The function a call at caller's instruction at goes to, as
// "(lua_newthread+0x1a)" in sources: most have no symbol.
std::optional<Traced> Deriver::follow_call(const Traced &caller, const CallSite &call, size_t bytes)
{
	auto fn = call.target ? code_.code_at(call.target, bytes)
			      : Expected<FunctionCode>(fail("an indirect call"));
	if (!fn) {
		out_.problems.push_back("could not follow the call at " + caller.at(call.addr) +
					": " + fn.error().message);
		return std::nullopt;
	}
	fn->name = "(" + caller.at(call.addr) + ")";
	return follow(std::move(*fn));
}

Traced Deriver::follow(FunctionCode fn)
{
	LazyOperations ops(dis_, fn.bytes, fn.addr, code_.arch());
	FunctionTrace trace = track_values(ops, code_.arch());
	LazyOperations::Decoded decoded = ops.take();
	return Traced{std::move(fn), std::move(trace), std::move(decoded)};
}

// Every direct call in t's code, each target once, without arguments:
// also those on no path the tracker follows, such as a switch's cases
// reached through a jump table: all of the code decoded, then.
std::vector<CallSite> Deriver::direct_calls(const Traced &t)
{
	std::vector<CallSite> out;
	LazyOperations ops(dis_, t.code.bytes, t.code.addr, code_.arch(), t.decoded);
	for (const Operation &op : ops.all()) {
		if ((op.mnemonic != "call" && op.mnemonic != "bl") || !op.branch_to)
			continue;
		if (std::none_of(out.begin(), out.end(),
				 [&](const CallSite &c) { return c.target == *op.branch_to; }))
			out.push_back(CallSite{op.addr, *op.branch_to, {}});
	}
	return out;
}

void Deriver::add(const std::string &name, uint32_t value, const std::string &source)
{
	if (out_.field(name))
		return; // the first function that shows it wins
	out_.fields.push_back(DerivedField{name, value, source});
}

void Deriver::problem(const std::string &field, const std::string &why)
{
	out_.problems.push_back("could not derive " + field + ": " + why);
}

void Deriver::unshown(const std::string &field, const std::string &why)
{
	out_.unshown.push_back(field + ": " + why);
}

void Deriver::add_ptrsize(uint8_t width, const std::string &source)
{
	if (width != 4 && width != 8)
		return problem("ptrsize",
			       "L->glref is loaded as " + std::to_string(width) + " bytes");
	ptrsize_ = width;
	add("ptrsize", width, source);
	add("gc64", width == 8, source);
	add("fr2", width == 8, source); // LJ_FR2 comes with GC64 (lj_arch.h)
}

} // namespace ljcore
