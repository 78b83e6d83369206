#include "analyzer/locate/locate.h"

#include <algorithm>

#include "analyzer/locate/frame_check.h"

#include "analyzer/locate/version_hint.h"
#include "analyzer/locate/vm_holders.h"
#include "analyzer/locate/vm_scan.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/model/lua_text.h"

namespace ljcore {

namespace {

// Adds the VMs the scan finds to vms; one found already says the scan
// found it too.
void add_scanned(const Target &target, const std::vector<const lj_layout *> &layouts,
		 std::vector<VmCandidate> &vms, std::optional<Rejection> &closest,
		 Diagnostics &diag)
{
	size_t before = vms.size();
	for (auto &c : scan_for_vms(target, layouts, closest)) {
		uint64_t g = c.g;
		if (!add_candidate(vms, std::move(c)))
			for (auto &v : vms)
				if (v.g == g)
					v.checks.push_back("also found by the memory scan");
	}
	diag.evidence("memory scan: " + std::to_string(vms.size() - before) + " more VM(s)");
}

// No VM: the candidate that got furthest says what to look at, a layout
// that is nearly right or a VM a crash damaged.
void explain_none(const std::optional<Rejection> &closest, size_t layouts, ScanMode scan,
		  Diagnostics &diag)
{
	std::string nearest;
	if (closest) {
		nearest = "; the closest candidate, g " + luajit_pointer(closest->g) + " (" +
			  closest->layout + "), failed: " + closest->failed;
		std::string passed;
		for (auto &c : closest->passed)
			passed += (passed.empty() ? "" : ", ") + c;
		diag.evidence("closest candidate: g " + luajit_pointer(closest->g) + ", " +
			      closest->found_by + ", layout " + closest->layout + ": passed " +
			      passed + "; failed: " + closest->failed);
	}
	diag.problem("no LuaJIT VM found: tried the VM register at every native frame, the "
		     "lua_States each thread holds, the symbol globalL" +
		     std::string(scan == ScanMode::never ? "" : " and a scan of writable memory") +
		     ", with " + std::to_string(layouts) + " layouts" + nearest +
		     " (--explain tells more)");
}

// What the VM at c.g has under c's layout and not under another: the
// checks that rank layouts which fit one g (vm_locator.h add_candidate).
std::string explained_only_by(const VmCandidate &c, const VmCandidate &other)
{
	std::string what;
	auto add = [&](bool has, const char *check) {
		if (has)
			what += (what.empty() ? "" : ", ") + std::string(check);
	};
	add(c.dispatch_ok && !other.dispatch_ok, "the dispatch table in place");
	add(c.cur_l_ok && !other.cur_l_ok, "a live g->cur_L");
	add(c.gg_chunk == VmCandidate::ChunkFit::fits &&
		    other.gg_chunk != VmCandidate::ChunkFit::fits,
	    "GG_State's allocation of its size");
	return what;
}

// A VM read with a built-in table though layouts were derived from its
// code, which come first: why each of those was refused, for --explain.
void explain_refused_derived(const Target &target, const VmCandidate &c, const LayoutSet &set,
			     Diagnostics &diag)
{
	if (set.origin_of(c.layout) != LayoutOrigin::table)
		return;
	for (const CodeLayout &d : set.from_code) {
		Vm vm(target, d.layout, c.g);
		std::string why;
		auto checked = check_global_state(vm, c.found_by);
		if (!checked) {
			why = checked.error().message;
		} else if (auto misread = frames_misread(vm)) {
			why = "its frames do not read: " + *misread;
		} else {
			std::string only = explained_only_by(c, *checked);
			why = only.empty() ? "it fits g too, but did not lead to it"
					   : "the table explains more: " + only;
		}
		diag.evidence("g " + luajit_pointer(c.g) + ": layout " + d.name + " (" + d.source +
			      ") refused: " + why + "; read with the table " + c.layout->name);
	}
}

} // namespace

std::vector<VmCandidate> locate_with(const Target &target, const NativeSession &native,
				     const std::vector<NativeStack> &stacks, ScanMode scan,
				     std::vector<const lj_layout *> layouts, Diagnostics &diag,
				     std::optional<Rejection> &closest)
{
	// Each round takes out the layouts whose frames did not read, and
	// looks again with the rest: the g they claimed may fit another.
	for (;;) {
		auto vms = vms_from_registers_and_symbols(target, target.arch(), native, stacks,
							  layouts, diag, closest);
		add_held_vms(target, stacks, layouts, vms, diag, closest);
		if (scan == ScanMode::always || (scan == ScanMode::automatic && vms.empty()))
			add_scanned(target, layouts, vms, closest, diag);
		std::vector<const lj_layout *> misread;
		std::erase_if(vms, [&](const VmCandidate &c) {
			auto why = frames_misread(Vm(target, *c.layout, c.g));
			if (!why)
				return false;
			diag.evidence("g " + luajit_pointer(c.g) + ", layout " + c.layout->name +
				      ": rejected, its frames do not read: " + *why);
			std::vector<std::string> passed = c.checks;
			passed.insert(passed.begin(), "global_State checks");
			note_rejection(closest,
				       Rejection{c.g, c.layout->name, c.found_by, std::move(passed),
						 "its frames do not read: " + *why});
			misread.push_back(c.layout);
			return true;
		});
		if (misread.empty())
			return vms;
		std::erase_if(layouts, [&](const lj_layout *ly) {
			return std::ranges::find(misread, ly) != misread.end();
		});
		if (layouts.empty())
			return vms;
	}
}

LocatedVms locate_vms(const Target &target, const NativeSession &native,
		      const std::vector<NativeStack> &stacks, ScanMode scan, Diagnostics &diag,
		      LayoutChoice layout)
{
	LocatedVms out;
	candidate_layouts(target, native, target.arch(), layout, out.layouts, diag);
	const auto &order = out.layouts.order;
	for (auto *ly : order)
		diag.evidence(std::string("layout candidate: ") + ly->name);
	std::optional<Rejection> closest;
	out.vms = locate_with(target, native, stacks, scan, order, diag, closest);
	for (const VmCandidate &c : out.vms)
		explain_refused_derived(target, c, out.layouts, diag);
	if (out.vms.empty())
		explain_none(closest, out.layouts.order.size(), scan, diag);
	return out;
}

VmResult describe_vm(const Target &target, const VmCandidate &c, const LayoutSet &layouts,
		     Diagnostics &diag)
{
	const lj_layout &ly = *c.layout;
	Vm vm(target, ly, c.g);
	VmResult v;
	v.global_state = c.g;
	v.found_by = c.found_by;
	v.checks = c.checks;
	v.layout = ly.name;
	// The offsets alone, for the profiler's BPF walker: the names and
	// the JIT layout point into memory that is ours, not the walker's.
	v.layout_offsets = ly;
	v.layout_offsets.name = nullptr;
	v.layout_offsets.jit = nullptr;
	if (ly.jit) {
		v.trace_layout_offsets = *ly.jit;
		v.trace_layout_offsets->name = nullptr;
	}
	for (size_t t : c.holders)
		v.threads.push_back(target.threads()[t].tid);
	if (!v.threads.empty())
		v.tid = v.threads.front();
	v.layout_source = layouts.source_of(c.layout);
	v.layout_origin = origin_name(layouts.origin_of(c.layout));
	v.layout_fields = layouts.fields_of(c.layout);
	// A layout no table equals (of DWARF, or derived) has no version to
	// match.
	if (layouts.is_table(c.layout))
		compare_with_hint(layouts.version, v, diag);
	GlobalState g(vm);
	v.main_thread = g.mainthread().value_or(0);
	v.current_thread = g.cur_L().value_or(0);
	v.vmstate = g.vmstate().value_or(0);
	v.vmstate_text = vmstate_text(v.vmstate, ly.vmstates);
	v.gc_total = g.gc_total().value_or(0);
	return v;
}

} // namespace ljcore
