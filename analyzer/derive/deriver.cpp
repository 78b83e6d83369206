#include "analyzer/derive/deriver.h"

#include <algorithm>

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

Traced Deriver::follow(FunctionCode fn, TrackOptions options)
{
	LazyOperations ops(dis_, fn.bytes, fn.addr, code_.arch());
	FunctionTrace trace = track_values(ops, code_.arch(), options);
	LazyOperations::Decoded decoded = ops.take();
	return Traced{std::move(fn), std::move(trace), std::move(decoded)};
}

bool Deriver::direct_calls(const FunctionCode &code, LazyOperations::Decoded decoded,
			   const std::function<bool(const CallSite &)> &found)
{
	LazyOperations ops(dis_, code.bytes, code.addr, code_.arch(), std::move(decoded));
	std::vector<uint64_t> targets;
	for (size_t i = 0; const Operation *op = ops.at(i); i++) {
		if ((op->mnemonic != "call" && op->mnemonic != "bl") || !op->branch_to ||
		    std::find(targets.begin(), targets.end(), *op->branch_to) != targets.end())
			continue;
		targets.push_back(*op->branch_to);
		CallSite c;
		c.addr = op->addr, c.target = *op->branch_to;
		if (found(c))
			return true;
	}
	return false;
}

void Deriver::add(const std::string &name, uint32_t value, const std::string &source)
{
	if (out_.field(name))
		return; // the first function that shows it wins
	out_.fields.push_back(DerivedField{name, value, source, layout_member(name)});
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
