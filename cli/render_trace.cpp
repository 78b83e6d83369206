// The trace table and the trace model as JSON.
#include "cli/render_trace.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <vector>

#include "cli/exit_codes.h"
#include "cli/json_writer.h"
#include "cli/render.h"
#include "cli/render_bytes.h"
#include "luajit/ir_names.h"
#include "luajit/trace_layout.h"

namespace ljcore {

namespace {

using nlohmann::json;

json ir_json(const Trace &t)
{
	json ir = json::array();
	for (size_t i = 0; i < t.ir.size(); i++) {
		const IrIns &ins = t.ir[i];
		json j = {{"ref", int64_t(t.nk + i) - LJ_REF_BIAS},
			  {"op", ins.op},
			  {"type", ins.type},
			  {"op1", ins.op1},
			  {"op2", ins.op2},
			  {"prev", ins.prev}};
		// Names as jit.dump prints them, except for a constant's value slot.
		if (!ins.value_slot) {
			std::string type_name = irtype_name(ins.type & LJ_IRT_TYPE);
			while (type_name.ends_with(' '))
				type_name.pop_back();
			j["op_name"] = ins.op < std::size(lj_ir_ops) ? lj_ir_ops[ins.op].name : "?";
			j["type_name"] = type_name;
		}
		if (ins.k)
			j["k"] = hex(ins.k);
		if (ins.str_len)
			j["str"] = ins.str, j["str_len"] = ins.str_len;
		if (ins.func.address) {
			j["func"] = {{"loc", ins.func.loc}, {"ffid", ins.func.ffid}};
			if (ins.func.cfunc)
				j["func"]["cfunc"] = hex(ins.func.cfunc);
		}
		if (!ins.problem.empty())
			j["problem"] = ins.problem;
		ir.push_back(std::move(j));
	}
	return ir;
}

json listing_json(const Trace &t)
{
	json lines = json::array();
	for (auto &l : t.listing) {
		char byte[3];
		std::string bytes;
		for (uint32_t i = 0; i < l.size && l.offset + i < t.mcode_bytes.size(); i++) {
			snprintf(byte, sizeof byte, "%02x", t.mcode_bytes[l.offset + i]);
			bytes += byte;
		}
		json j = {
			{"offset", l.offset}, {"size", l.size}, {"bytes", bytes}, {"text", l.text}};
		if (l.target)
			j["target"] = hex(l.target);
		if (l.exit >= 0)
			j["exit"] = l.exit;
		if (l.to_trace)
			j["to_trace"] = l.to_trace;
		if (l.to_loop)
			j["to_loop"] = true;
		if (!l.snapshots.empty())
			j["snapshots"] = l.snapshots;
		lines.push_back(std::move(j));
	}
	return lines;
}

// One trace: small enough to build whole, however many traces there are.
json trace_json(const Trace &t, bool with_listing)
{
	json snaps = json::array();
	for (auto &s : t.snapshots)
		snaps.push_back({{"ref", int64_t(s.ref) - LJ_REF_BIAS},
				 {"mcofs", s.mcofs},
				 {"nslots", s.nslots},
				 {"topslot", s.topslot},
				 {"count", s.count},
				 {"pc", hex(s.pc)},
				 {"entries", s.entries}});
	json j = {{"number", t.number},
		  {"address", hex(t.address)},
		  {"root", t.root},
		  {"link", t.link},
		  {"linktype", t.linktype},
		  {"nextroot", t.nextroot},
		  {"nextside", t.nextside},
		  {"nchild", t.nchild},
		  {"start",
		   {{"proto", hex(t.start_proto)}, {"pc", hex(t.start_pc)}, {"loc", t.start_loc}}},
		  {"nins", t.nins > LJ_REF_BIAS ? t.nins - LJ_REF_BIAS - 1 : 0},
		  {"nk", LJ_REF_BIAS - int64_t(t.nk)},
		  {"nsnap", t.snapshots.size()},
		  {"mcode",
		   {{"address", hex(t.mcode)},
		    {"size", t.szmcode},
		    {"loop", t.mcloop},
		    {"spadjust", t.spadjust}}},
		  {"ir", ir_json(t)},
		  {"snapshots", std::move(snaps)}};
	if (!t.start_function.empty())
		j["start"]["function"] = t.start_function;
	if (t.exits >= 0)
		j["exits"] = t.exits;
	if (t.parent) {
		j["parent"] = t.parent;
		j["parent_exit"] = t.parent_exit;
	}
	if (with_listing)
		j["mcode"]["listing"] = listing_json(t);
	if (!t.problem.empty())
		j["problem"] = t.problem;
	return j;
}

// Members in name order, as the writer needs them.
void trace_set_json(JsonWriter &w, const TraceSet &set, bool with_listing)
{
	w.begin_object();
	w.key("executing").value(set.executing);
	w.key("fork").value(set.fork);
	w.key("gc64").value(set.gc64);
	w.key("jit_state").value(hex(set.jit_state));
	if (!set.problem.empty())
		w.key("problem").value(set.problem);
	w.key("sizetrace").value(set.sizetrace);
	w.key("traces").begin_array();
	for (auto &t : set.traces)
		w.value(trace_json(t, with_listing));
	w.end_array();
	w.end_object();
}

} // namespace

void render_trace_mcode(std::ostream &out, const Trace &t)
{
	out << "---- TRACE " << t.number << " mcode " << t.szmcode << "\n";
	for (auto &l : t.listing) {
		for (uint32_t s : l.snapshots)
			out << "  -- SNAP #" << s << "\n";
		if (t.mcloop && l.offset == t.mcloop)
			out << "->LOOP:\n";
		std::string note;
		if (l.offset == 0)
			note = "entry";
		if (l.exit >= 0)
			note += "->exit " + std::to_string(l.exit);
		else if (l.to_loop)
			note += "->LOOP";
		else if (l.to_trace)
			note += "->TRACE " + std::to_string(l.to_trace);
		char line[320];
		snprintf(line, sizeof line, "%012llx  %-44s",
			 (unsigned long long)(t.mcode + l.offset), l.text.c_str());
		std::string s = line;
		if (!note.empty())
			s += "; " + note;
		else
			s.erase(s.find_last_not_of(' ') + 1);
		out << printable(s) << "\n";
	}
}

void render_trace_table(std::ostream &out, const Analysis &a)
{
	for (size_t v = 0; v < a.vms.size(); v++) {
		const VmResult &vm = a.vms[v];
		out << "VM " << hex_address(vm.global_state) << "  " << printable(vm.layout)
		    << "\n";
		if (!vm.traces) {
			out << "  no traces read\n";
			continue;
		}
		const TraceSet &set = *vm.traces;
		if (!set.problem.empty()) {
			out << "  traces: " << printable(set.problem) << "\n";
			continue;
		}
		int32_t executing = vm.traces ? vm.traces->executing : 0;
		if (executing)
			out << "  executing trace " << executing << " at the crash\n";
		// START is as wide as its longest text: "file.lua:12 (function <file.lua:10>)".
		auto start_text = [](const Trace &t) {
			return printable(t.start_function.empty()
						 ? t.start_loc
						 : t.start_loc + " (" + t.start_function + ")");
		};
		int start_width = 24;
		for (auto &t : set.traces)
			start_width = std::max(start_width, int(start_text(t).size()));
		// Numbers right-aligned, texts left-aligned, under their headers.
		struct Column {
			int width;
			bool left;
			int gap;
		};
		const Column columns[] = {{5, false, 0}, {6, false, 1},          {4, false, 2},
					  {14, true, 2}, {start_width, true, 2}, {4, false, 2},
					  {4, false, 2}, {5, false, 2},          {18, true, 2},
					  {5, false, 2}, {5, false, 2}};
		auto row = [&](const char *mark, const std::vector<std::string> &cells) {
			out << mark;
			for (size_t i = 0; i < cells.size() && i < std::size(columns); i++) {
				const Column &c = columns[i];
				out << std::string(size_t(c.gap), ' ')
				    << (c.left ? std::left : std::right) << std::setw(c.width)
				    << cells[i];
			}
			out << std::right << "\n";
		};
		row("  ", {"TRACE", "PARENT", "LINK", "LINKTYPE", "START", "IR", "SNAP", "EXITS",
			   "MCODE", "SIZE", "SPADJ"});
		for (auto &t : set.traces) {
			int64_t nins = t.nins > LJ_REF_BIAS ? t.nins - LJ_REF_BIAS - 1 : 0;
			// A side trace: its parent and exit ("1/6"), as jit.dump
			// names them when it starts, else its root.
			std::string root = t.parent ? std::to_string(t.parent) + "/" +
							      std::to_string(t.parent_exit)
					   : t.root ? std::to_string(t.root)
						    : "-";
			// "-": the machine code could not be read or disassembled.
			std::string exits = t.exits >= 0 ? std::to_string(t.exits) : "-";
			row(int32_t(t.number) == executing ? "* " : "  ",
			    {std::to_string(t.number), root, std::to_string(t.link),
			     printable(t.linktype), start_text(t), std::to_string(nins),
			     std::to_string(t.snapshots.size()), exits, hex_address(t.mcode),
			     std::to_string(t.szmcode), std::to_string(t.spadjust)});
			if (!t.problem.empty())
				out << "         problem: " << printable(t.problem) << "\n";
		}
	}
}

void render_traces_json(std::ostream &out, const Analysis &a, bool with_listing)
{
	JsonWriter w(out);
	w.begin_object();
	w.key("arch").value(a.arch);
	w.key("problems").value(a.diagnostics.problems());
	w.key("schema_version").value(Analysis::schema_version);
	w.key("source").value(a.source);
	w.key("vms").begin_array();
	for (auto &vm : a.vms) {
		w.begin_object();
		w.key("global_state").value(hex(vm.global_state));
		w.key("layout").value(vm.layout);
		if (vm.traces) {
			w.key("traces");
			trace_set_json(w, *vm.traces, with_listing);
		}
		w.end_object();
	}
	w.end_array();
	w.end_object();
	w.finish();
}

int render_one_trace(std::ostream &out, const Analysis &a, uint32_t number, bool mcode, int status)
{
	for (auto &vm : a.vms) {
		if (!vm.traces)
			continue;
		for (auto &t : vm.traces->traces) {
			if (t.number != number)
				continue;
			if (t.ir.empty()) {
				std::cerr << "ljcore: trace " << number << " could not be read\n";
				return exit_partial;
			}
			render_trace_ir(out, *vm.traces, t);
			if (mcode)
				render_trace_mcode(out, t);
			return status;
		}
	}
	std::cerr << "ljcore: no trace " << number << " in "
		  << (a.vms.empty() ? "the core: no VM found" : "any VM") << "\n";
	return a.vms.empty() ? exit_no_vm : exit_partial;
}

} // namespace ljcore
