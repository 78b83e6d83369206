#include "analyzer/traces/traces.h"

#include <cstring>

#include "analyzer/lua/function.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/lua/limits.h"
#include "analyzer/lua/lua_debug.h"
#include "analyzer/traces/ir_ops.h"
#include "luajit/layout.h"

namespace ljcore {

namespace {

// IR opcodes whose constants ir_kgc(), ir_kptr(), ir_knum() and
// ir_kint64() read (lj_ir.h). Looked up by name: IRDEF's order is data.
struct ConstOps {
	int kint = ir_op("KINT"), kgc = ir_op("KGC"), kptr = ir_op("KPTR"), kkptr = ir_op("KKPTR"),
	    knum = ir_op("KNUM"), kint64 = ir_op("KINT64");
};

// TraceSet::fork of a trace layout's fork.
const char *fork_name(const lj_trace_layout &tl)
{
	return tl.fork == LJ_FORK_LUAJIT2     ? "luajit2"
	       : tl.fork == LJ_FORK_TARANTOOL ? "tarantool"
					      : "upstream";
}

const ConstOps &const_ops()
{
	static const ConstOps ops;
	return ops;
}

std::string miss_at(const char *what, uint64_t addr, const ReadMiss &m)
{
	return std::string("reading ") + what + " at " + luajit_pointer(addr) + ": " + m.reason +
	       " at " + luajit_pointer(m.addr);
}

// Bytes read per step of read_bytes().
constexpr size_t read_step = 64 * 1024;

// A bounded array of bytes from the target, read a step at a time: the
// buffer grows only with what was read, so a length the header inflated
// costs no memory past the first byte that is not there.
std::expected<std::vector<uint8_t>, std::string> read_bytes(const Vm &mem, const char *what,
							    uint64_t addr, size_t len)
{
	std::vector<uint8_t> buf;
	for (size_t done = 0; done < len;) {
		size_t n = std::min(read_step, len - done);
		buf.resize(done + n);
		auto r = mem.memory().read(addr + done,
					   std::as_writable_bytes(std::span(buf).subspan(done)));
		if (!r)
			return std::unexpected(miss_at(what, addr, r.error()));
		done += n;
	}
	return buf;
}

template <typename T> T load(const std::vector<uint8_t> &buf, size_t off)
{
	T v{};
	if (off + sizeof(T) <= buf.size())
		memcpy(&v, buf.data() + off, sizeof(T));
	return v;
}

// jit.util.funcinfo()'s loc of a Lua function: where it starts, at pc 0,
// i.e. its first line.
std::string function_location(const std::string &chunkname, const Proto &pt)
{
	return luajit_location(chunkname, pt.firstline, pt.addr, pt.firstline);
}

// The text of a function for jit.dump's fmtfunc(): jit.util.funcinfo()
// of a Lua function gives its location at pc 0, i.e. its first line.
TraceFunction function_info(const Vm &mem, uint64_t fn, std::string &problem)
{
	Function func(mem, fn);
	TraceFunction f;
	f.address = fn;
	auto ffid = func.ffid();
	if (!ffid) {
		problem = miss_at("GCfunc", fn, ffid.error());
		return f;
	}
	f.ffid = *ffid;
	if (f.ffid != LJ_FF_LUA) {
		f.cfunc = func.c_function().value_or(0);
		return f;
	}
	auto pt = function_proto(mem, fn);
	if (!pt) {
		problem = pt.error().message;
		return f;
	}
	auto name = mem.str(pt->chunkname);
	if (!name) {
		problem = miss_at("chunk name", pt->chunkname, name.error());
		return f;
	}
	f.loc = function_location(*name, *pt);
	return f;
}

// Resolves what the constant at index i of a trace's IR refers to.
void resolve_constant(const Vm &mem, bool gc64, const std::vector<uint8_t> &raw, size_t i,
		      IrIns &ins)
{
	const ConstOps &k = const_ops();
	size_t at = i * LJ_IRINS_SIZE;
	// 64-bit payloads live in the next slot (GC64 also puts GC objects
	// and pointers there); otherwise op1/op2 hold 32 bits of it.
	size_t wide = at + LJ_IRINS_SIZE;
	if (ins.op == k.kint) {
		ins.k = uint64_t(int64_t(load<int32_t>(raw, at)));
	} else if (ins.op == k.knum || ins.op == k.kint64) {
		ins.k = load<uint64_t>(raw, wide);
	} else if (ins.op == k.kptr || ins.op == k.kkptr) {
		ins.k = gc64 ? load<uint64_t>(raw, wide) : load<uint32_t>(raw, at);
	} else if (ins.op == k.kgc) {
		ins.k = gc64 ? load<uint64_t>(raw, wide) : load<uint32_t>(raw, at);
		uint8_t t = ins.type & LJ_IRT_TYPE;
		if (t == LJ_TSTR) {
			auto len = mem.str_len(ins.k);
			auto s = mem.str(ins.k, 64);
			if (len && s) {
				ins.str_len = *len;
				ins.str = *s;
			} else {
				ins.problem =
					miss_at("GCstr", ins.k, len ? s.error() : len.error());
			}
		} else if (t == LJ_TFUNC) {
			ins.func = function_info(mem, ins.k, ins.problem);
		}
	}
}

bool has_wide_payload(const IrIns &ins, bool gc64)
{
	const ConstOps &k = const_ops();
	return ins.op == k.knum || ins.op == k.kint64 ||
	       (gc64 && (ins.op == k.kgc || ins.op == k.kptr || ins.op == k.kkptr));
}

// The IR of one trace: refs nk .. nins-1, constants resolved.
std::string read_ir(const Vm &mem, bool gc64, std::string_view fork, uint64_t ir, Trace &t)
{
	if (t.nk > LJ_REF_BIAS || t.nins < LJ_REF_BIAS || t.nins - t.nk > lj_limit::trace_ir)
		return "implausible IR bounds nk " + std::to_string(t.nk) + ", nins " +
		       std::to_string(t.nins);
	size_t n = t.nins - t.nk;
	auto raw = read_bytes(mem, "IR", ir + uint64_t(t.nk) * LJ_IRINS_SIZE, n * LJ_IRINS_SIZE);
	if (!raw)
		return raw.error();
	t.ir.resize(n);
	for (size_t i = 0; i < n; i++) {
		IrIns &ins = t.ir[i];
		size_t at = i * LJ_IRINS_SIZE;
		ins.op1 = load<uint16_t>(*raw, at + LJ_IRINS_OP1);
		ins.op2 = load<uint16_t>(*raw, at + LJ_IRINS_OP2);
		ins.type = load<uint8_t>(*raw, at + LJ_IRINS_T);
		ins.op = load<uint8_t>(*raw, at + LJ_IRINS_O);
		ins.prev = load<uint16_t>(*raw, at + LJ_IRINS_PREV);
	}
	// Constants grow down from REF_BIAS; one with a 64-bit payload takes
	// two slots, the payload in the upper one.
	for (size_t i = 0; i + t.nk < LJ_REF_BIAS; i++) {
		resolve_constant(mem, gc64, *raw, i, t.ir[i]);
		if (has_wide_payload(t.ir[i], gc64) && i + 1 < n)
			t.ir[++i].value_slot = true;
	}
	// A fork with its own opcode numbers gets lj_ir_ops' (the constants'
	// opcodes, which come first in IRDEF, are the same in every fork).
	if (fork != "upstream" && fork != "luajit2")
		for (IrIns &ins : t.ir)
			if (!ins.value_slot)
				ins.op = canonical_ir_op(fork, ins.op);
	return {};
}

std::string read_snapshots(const Vm &mem, uint64_t snap, uint32_t nsnap, uint64_t snapmap,
			   uint32_t nsnapmap, Trace &t)
{
	bool fr2 = mem.layout().fr2;
	if (nsnapmap > lj_limit::trace_snapmap)
		return "implausible snapshot map size " + std::to_string(nsnapmap);
	auto snaps = read_bytes(mem, "snapshots", snap, size_t(nsnap) * LJ_SNAP_SIZE);
	if (!snaps)
		return snaps.error();
	auto map = read_bytes(mem, "snapshot map", snapmap, size_t(nsnapmap) * 4);
	if (!map)
		return map.error();
	for (uint32_t i = 0; i < nsnap; i++) {
		size_t at = size_t(i) * LJ_SNAP_SIZE;
		TraceSnapshot s;
		uint32_t mapofs = load<uint32_t>(*snaps, at + LJ_SNAP_MAPOFS);
		s.ref = load<uint16_t>(*snaps, at + LJ_SNAP_REF);
		s.mcofs = load<uint16_t>(*snaps, at + LJ_SNAP_MCOFS);
		s.nslots = load<uint8_t>(*snaps, at + LJ_SNAP_NSLOTS);
		s.topslot = load<uint8_t>(*snaps, at + LJ_SNAP_TOPSLOT);
		s.count = load<uint8_t>(*snaps, at + LJ_SNAP_COUNT);
		uint8_t nent = load<uint8_t>(*snaps, at + LJ_SNAP_NENT);
		if (uint64_t(mapofs) + nent > nsnapmap)
			return "snapshot #" + std::to_string(i) + " runs past the snapshot map";
		for (uint32_t e = 0; e < nent; e++)
			s.entries.push_back(load<uint32_t>(*map, (size_t(mapofs) + e) * 4));
		// The frame links run to the next snapshot's entries (or the
		// end of the map for the last one).
		uint32_t next = i + 1 < nsnap
					? load<uint32_t>(*snaps, at + LJ_SNAP_SIZE + LJ_SNAP_MAPOFS)
					: nsnapmap;
		size_t links = size_t(mapofs) + nent;
		if (next > links && next <= nsnapmap) {
			if (fr2) {
				uint64_t pcbase = load<uint64_t>(*map, links * 4);
				s.pc = pcbase >> 8;
				s.base_slot = uint32_t(pcbase & 0xff);
			} else {
				s.pc = load<uint32_t>(*map, links * 4);
				for (size_t l = links + 1; l < next; l++)
					s.links.push_back(load<uint32_t>(*map, l * 4));
			}
		}
		t.snapshots.push_back(std::move(s));
	}
	return {};
}

const char *const linktype_names[] = LJ_LINKTYPE_NAMES;

Trace read_trace(const Vm &mem, const lj_trace_layout &tl, uint64_t addr, uint32_t number,
		 bool with_mcode)
{
	const lj_layout &ly = mem.layout();
	Trace t;
	t.number = number;
	t.address = addr;
	auto gct = mem.gct(addr);
	if (!gct) {
		t.problem = miss_at("GCtrace", addr, gct.error());
		return t;
	}
	if (*gct != LJ_TTRACE) {
		t.problem = "object at " + luajit_pointer(addr) + " is not a GCtrace";
		return t;
	}
	// The header in one read: every field below is inside it.
	auto hdr = read_bytes(mem, "GCtrace", addr, size_t(tl.T_linktype) + 1);
	if (!hdr) {
		t.problem = hdr.error();
		return t;
	}
	auto half = [&](size_t off) { return load<uint16_t>(*hdr, off); };
	auto word = [&](size_t off) { return load<uint32_t>(*hdr, off); };
	auto ptr = [&](size_t off) { return load<uint64_t>(*hdr, off); };
	auto gcref = [&](size_t off) {
		return ly.ptrsize == 8 ? load<uint64_t>(*hdr, off) : load<uint32_t>(*hdr, off);
	};
	if (half(tl.T_traceno) != number) {
		t.problem = "GCtrace at " + luajit_pointer(addr) + " says it is trace " +
			    std::to_string(half(tl.T_traceno));
		return t;
	}
	t.root = half(tl.T_root);
	t.link = half(tl.T_link);
	uint8_t linktype = load<uint8_t>(*hdr, tl.T_linktype);
	t.linktype = linktype < std::size(linktype_names) ? linktype_names[linktype] : "?";
	t.nextroot = half(tl.T_nextroot);
	t.nextside = half(tl.T_nextside);
	t.nchild = half(tl.T_nchild);
	t.nk = word(tl.T_nk);
	t.nins = word(tl.T_nins);
	t.start_proto = gcref(tl.T_startpt);
	t.start_pc = gcref(tl.T_startpc);
	t.mcode = ptr(tl.T_mcode);
	t.szmcode = word(tl.T_szmcode);
	t.mcloop = word(tl.T_mcloop);
	t.spadjust = half(tl.T_spadjust);

	if (auto pt = read_proto(mem, t.start_proto); pt) {
		uint32_t pos = t.start_pc >= pt->bc ? uint32_t((t.start_pc - pt->bc) / 4) : 0;
		auto name = mem.str(pt->chunkname);
		auto line = proto_line(mem, *pt, pos);
		if (name && line)
			t.start_loc = luajit_location(*name, pt->firstline, pt->addr, *line);
		if (name)
			t.start_function = luajit_function(*name, *pt);
	}

	std::string problem = read_ir(mem, ly.gc64, fork_name(tl), ptr(tl.T_ir), t);
	if (problem.empty())
		problem = read_snapshots(mem, ptr(tl.T_snap), half(tl.T_nsnap), ptr(tl.T_snapmap),
					 word(tl.T_nsnapmap), t);
	if (problem.empty() && with_mcode) {
		if (t.szmcode > lj_limit::trace_mcode) {
			problem = "implausible machine code size " + std::to_string(t.szmcode);
		} else if (auto code = read_bytes(mem, "machine code", t.mcode, t.szmcode); code) {
			t.mcode_bytes = std::move(*code);
		} else {
			problem = code.error();
		}
	}
	t.problem = problem;
	return t;
}

} // namespace

std::string luajit_location(const std::string &chunkname, int32_t firstline, uint64_t proto,
			    int32_t line)
{
	std::string l = ":" + std::to_string(line);
	if (firstline == -1) // ~(BCLine)0: a built-in
		return "builtin:" + chunkname;
	if (!chunkname.empty() && chunkname[0] == '@') {
		std::string path = chunkname.substr(1);
		size_t slash = path.find_last_of("/\\");
		// Only the file's own name: jit.dump's listings stay short.
		if (slash != std::string::npos && slash > 0)
			path = path.substr(slash + 1);
		return path + l;
	}
	if (chunkname.size() > 40)
		return luajit_pointer(proto) + l;
	if (!chunkname.empty() && chunkname[0] == '=')
		return chunkname.substr(1) + l;
	return "\"" + chunkname + "\"" + l;
}

std::string luajit_function(const std::string &chunkname, const Proto &pt)
{
	// lj_debug_getinfo(): what is "main" for a first line of 0, unless
	// the prototype has no lines at all.
	if (pt.firstline == 0 && pt.numline != 0)
		return "main chunk";
	return "function <" + function_location(chunkname, pt) + ">";
}

TraceSet read_traces(const Vm &mem, const lj_trace_layout &tl, bool with_mcode, uint32_t only)
{
	const lj_layout &ly = mem.layout();
	GlobalState g(mem);
	TraceSet set;
	set.fork = fork_name(tl);
	set.gc64 = ly.gc64;
	set.jit_state = g.gg() + tl.gg_J;
	int32_t vmstate = g.vmstate().value_or(0);
	set.executing = vmstate > 0 ? vmstate : 0;
	auto array = mem.value<uint64_t>(set.jit_state + tl.J_trace);
	auto size = mem.value<uint32_t>(set.jit_state + tl.J_sizetrace);
	if (!array || !size) {
		set.problem =
			miss_at("jit_State", set.jit_state, array ? size.error() : array.error());
		return set;
	}
	if (*size > lj_limit::traces + 1) {
		set.problem = "implausible trace array size " + std::to_string(*size);
		return set;
	}
	set.sizetrace = *size;
	if (*size == 0 || *array == 0)
		return set; // the JIT never compiled anything
	auto refs = read_bytes(mem, "trace array", *array, size_t(*size) * ly.ptrsize);
	if (!refs) {
		set.problem = refs.error();
		return set;
	}
	if (with_mcode) {
		uint64_t groups = set.jit_state + tl.J_exitstubgroup;
		for (uint32_t i = 0; i < LJ_MAX_EXITSTUBGR; i++)
			set.exit_stub_groups.push_back(
				mem.value<uint64_t>(groups + 8 * i).value_or(0));
	}
	// Trace 0 is never used (lj_trace.c starts numbering at 1).
	for (uint32_t n = 1; n < *size; n++) {
		uint64_t t = ly.ptrsize == 8 ? load<uint64_t>(*refs, size_t(n) * 8)
					     : load<uint32_t>(*refs, size_t(n) * 4);
		if (t && (only == 0 || n == only))
			set.traces.push_back(read_trace(mem, tl, t, n, with_mcode));
	}
	return set;
}

} // namespace ljcore
