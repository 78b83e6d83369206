// A trace's IR and snapshots in exactly the text jit.dump prints with
// "+rs" (LuaJIT's jit/dump.lua, functions dump_ir, printsnap, formatk,
// ridsp_name, dumpcallfunc and dumpcallargs are the specification).
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

#include "analyzer/model/lua_text.h"
#include "cli/render_bytes.h"
#include "cli/render_trace.h"
#include "luajit/ir_names.h"
#include "luajit/layout.h"
#include "luajit/trace_layout.h"

namespace ljcore {

namespace {

// The three-letter IR type names (dump.lua irtype_text), IRTDEF order.
const char *const irtype_names[] = {
	"nil", "fal", "tru", "lud", "str", "p32", "thr", "pro", "fun", "p64", "cdt", "tab",
	"udt", "flt", "num", "i8 ", "u8 ", "i16", "u16", "int", "u32", "i64", "u64", "sfp",
};

// What jit.dump of the fork that compiled a trace (TraceSet::fork) names
// FLOAD fields, CALL targets and fast functions, and its opcodes with
// their operand modes in its own numbering.
struct ForkNames {
	std::span<const lj_ir_op> ops;
	std::span<const char *const> fields, calls, ffnames;
};

const ForkNames &fork_names(std::string_view fork)
{
	static const ForkNames upstream{lj_ir_ops, lj_irfield_upstream, lj_ircall_upstream,
					lj_ffnames_upstream},
		luajit2{lj_ir_ops, lj_irfield_luajit2, lj_ircall_luajit2, lj_ffnames_luajit2},
		tarantool{lj_ir_ops_tarantool, lj_irfield_tarantool, lj_ircall_tarantool,
			  lj_ffnames_tarantool};
	return fork == "tarantool" ? tarantool : fork == "luajit2" ? luajit2 : upstream;
}

// The operand modes of each opcode, by lj_ir_ops' number (which the trace
// reader gives every fork's instructions), as the fork defines them:
// Tarantool's VLOAD has no second operand. {"?", 3, 3} (no operands) for
// one the fork lacks.
std::array<lj_ir_op, 256> operand_modes(std::span<const lj_ir_op> fork_ops)
{
	std::array<lj_ir_op, 256> modes;
	modes.fill({"?", 3, 3});
	for (size_t op = 0; op < std::size(lj_ir_ops); op++)
		for (const lj_ir_op &own : fork_ops)
			if (strcmp(own.name, lj_ir_ops[op].name) == 0)
				modes[op] = own;
	return modes;
}

std::string fmt(const char *f, auto... args)
{
	char buf[256];
	snprintf(buf, sizeof buf, f, args...);
	return buf;
}

// An opcode's name padded to six columns, as vmdef.irnames stores it.
std::string op_name(unsigned o)
{
	std::string n = o < std::size(lj_ir_ops) ? lj_ir_ops[o].name : "?";
	n.resize(6, ' ');
	return n;
}

// string.format("%+.14g") as LuaJIT prints it: "nan" carries no sign.
std::string lua_number(double k)
{
	if (std::isnan(k))
		return "nan";
	if (std::isinf(k))
		return k < 0 ? "-inf" : "+inf";
	return fmt(0 < k && k < 0x1p-1026 ? "%+a" : "%+.14g", k);
}

// string.format("%%-4s"): left-aligned in four columns.
std::string pad4(std::string s)
{
	if (s.size() < 4)
		s.resize(4, ' ');
	return s;
}

// gsub(k, "%c", ctlsub): control characters as escapes.
std::string escape_controls(const std::string &s)
{
	std::string out;
	for (unsigned char c : s) {
		if (c == '\n')
			out += "\\n";
		else if (c == '\r')
			out += "\\r";
		else if (c == '\t')
			out += "\\t";
		else if (c < 32 || c == 127)
			out += fmt("\\%03d", c);
		else
			out += char(c);
	}
	return out;
}

class IrDump {
public:
	IrDump(std::ostream &out, const TraceSet &set, const Trace &t)
	    : out_(out), t_(t), register_names_(set.register_names), names_(fork_names(set.fork)),
	      modes_(operand_modes(names_.ops))
	{
	}

	void dump()
	{
		out_ << "---- TRACE " << t_.number << " IR\n";
		size_t snapno = 0;
		int64_t snapref = t_.snapshots.empty() ? 65536 : snap_ref(0);
		int64_t nins = int64_t(t_.nins) - LJ_REF_BIAS - 1;
		for (int64_t ins = 1; ins <= nins; ins++) {
			if (ins >= snapref) {
				out_ << fmt("....              SNAP   #%-3d [ ", int(snapno));
				print_snap(t_.snapshots[snapno]);
				snapno++;
				snapref = snapno < t_.snapshots.size() ? snap_ref(snapno) : 65536;
			}
			instruction(ins);
		}
		if (snapno < t_.snapshots.size()) {
			out_ << fmt("....              SNAP   #%-3d [ ", int(snapno));
			print_snap(t_.snapshots[snapno]);
		}
	}

private:
	int64_t snap_ref(size_t i) const { return int64_t(t_.snapshots[i].ref) - LJ_REF_BIAS; }

	const IrIns *at(int64_t ref) const { return t_.at(ref + LJ_REF_BIAS); }

	// jit.util.traceir()'s operand: refs unbiased, literals as stored.
	int64_t operand(const IrIns &ins, int which) const
	{
		unsigned m = which == 1 ? mode1(ins) : mode2(ins);
		uint16_t v = which == 1 ? ins.op1 : ins.op2;
		return m == 0 ? int64_t(v) - LJ_REF_BIAS : int64_t(v);
	}
	unsigned mode1(const IrIns &i) const { return modes_[i.op].m1; }
	unsigned mode2(const IrIns &i) const { return modes_[i.op].m2; }

	std::string func_name(const TraceFunction &f) const
	{
		if (!f.loc.empty())
			return printable(f.loc);
		if (f.ffid > LJ_FF_C && size_t(f.ffid) < names_.ffnames.size())
			return names_.ffnames[size_t(f.ffid)];
		if (f.cfunc)
			return fmt("C:%llx", (unsigned long long)f.cfunc);
		return "(?)";
	}

	// The value jit.util.tracek() gives for a constant, as formatk()
	// prints it; sn is the snapshot entry naming it, if any.
	std::string formatk(int64_t idx, uint32_t sn = 0) const
	{
		const IrIns *k = at(idx);
		if (!k)
			return "?";
		int slot = -1;
		if (op_name(k->op) == "KSLOT ") {
			slot = k->op2;
			k = at(int64_t(k->op1) - LJ_REF_BIAS);
			if (!k)
				return "?";
		}
		std::string o = op_name(k->op);
		unsigned t = k->type & LJ_IRT_TYPE;
		std::string s;
		auto number = [&](double v) {
			if (t < 12)
				return v == 0 ? std::string("NULL")
					      : fmt("[0x%08llx]", (unsigned long long)v);
			if (sn & (LJ_SNAP_FRAME | LJ_SNAP_CONT))
				return std::string(sn & LJ_SNAP_CONT ? "contpc" : "ftsz");
			if (v == 0x1p52 + 0x1p51)
				return std::string("bias");
			return lua_number(v);
		};
		if (o == "KINT  ") {
			s = number(double(int32_t(k->k)));
		} else if (o == "KNULL ") {
			s = number(0);
		} else if (o == "KPTR  " || o == "KKPTR ") {
			s = number(double(k->k));
		} else if (o == "KNUM  ") {
			double v;
			memcpy(&v, &k->k, sizeof v);
			s = number(v);
		} else if (o == "KGC   " && t == LJ_TSTR) {
			// As jit.dump, then what is still not text (bytes past
			// 127 that are not UTF-8, or that the cut at 20 split).
			std::string e = escape_controls(k->str);
			s = k->str_len > 20 ? "\"" + printable(e.substr(0, 20)) + "\"~"
					    : "\"" + printable(e) + "\"";
		} else if (o == "KGC   " && t == LJ_TFUNC) {
			s = func_name(k->func);
		} else if (o == "KGC   " && t == LJ_TTAB) {
			s = "{" + luajit_pointer(k->k) + "}";
		} else if (o == "KGC   " && t == LJ_IRT_UDATA) {
			s = "userdata:" + luajit_pointer(k->k);
		} else if (o == "KINT64" && t == LJ_IRT_I64) {
			s = fmt("%+lld", (long long)k->k);
		} else if (o == "KINT64") {
			s = fmt("%lldLL", (long long)k->k);
		} else if (sn == 0x1057fff) {
			// SNAP(1, SNAP_FRAME | SNAP_NORESTORE, REF_NIL): LJ_FR2's
			// slot 1, printed bare.
			return "----";
		} else if (o == "KPRI  ") {
			s = t == 0 ? "nil" : t == 1 ? "false" : "true";
		} else {
			// Other GC constants (cdata, threads, prototypes): tostring()
			// of the object, as far as we can say it without its type.
			const char *what = t == 10 ? "cdata" : t == 6 ? "thread" : "proto";
			s = std::string(what) + ": " + luajit_pointer(k->k);
		}
		s = pad4(s);
		if (slot >= 0)
			s += fmt(" @%d", slot);
		return s;
	}

	void print_snap(const TraceSnapshot &snap) const
	{
		size_t n = 0;
		for (unsigned s = 0; s < snap.nslots; s++) {
			uint32_t sn = n < snap.entries.size() ? snap.entries[n] : 255u << 24;
			if (LJ_SNAP_ENTRY_SLOT(sn) == s) {
				n++;
				int64_t ref = int64_t(LJ_SNAP_ENTRY_REF(sn)) - LJ_REF_BIAS;
				if (ref < 0)
					out_ << formatk(ref, sn);
				else if (sn & LJ_SNAP_SOFTFPNUM)
					out_ << fmt("%04d/%04d", int(ref), int(ref + 1));
				else
					out_ << fmt("%04d", int(ref));
				out_ << ((sn & LJ_SNAP_FRAME) == 0 ? " " : "|");
			} else {
				out_ << "---- ";
			}
		}
		out_ << "]\n";
	}

	std::string reg_name(unsigned rid) const
	{
		if (rid < register_names_.size())
			return register_names_[rid];
		return fmt("rid%u", rid); // none the architecture has
	}

	// Where the register allocator put an instruction (RID_SINK and
	// RID_SUNK are 253 and 254: sunk allocations).
	std::string ridsp_name(uint16_t ridsp, int64_t ins) const
	{
		unsigned rid = ridsp & 0xff, slot = ridsp >> 8;
		if (rid == 253 || rid == 254)
			return (slot == 0 || slot == 255) ? " {sink"
							  : fmt(" {%04d", int(ins - slot));
		if (ridsp > 255)
			return fmt("[%x]", slot * 4);
		if (rid < 128)
			return reg_name(rid);
		return "";
	}

	// The function of a CALLXS, and the C type of a CARG(func, ctype).
	std::string call_func(int64_t ins) const
	{
		std::string ctype;
		if (ins > 0) {
			const IrIns *i = at(ins);
			if (i && (i->type & LJ_IRT_TYPE) == 0) {
				ins = operand(*i, 1);
				ctype = formatk(operand(*i, 2));
			}
		}
		if (ins < 0) {
			const IrIns *k = at(ins);
			out_ << fmt("[0x%llx](", (unsigned long long)(k ? k->k : 0));
		} else {
			out_ << fmt("%04d (", int(ins));
		}
		return ctype;
	}

	void call_args(int64_t ins, int depth = 0) const
	{
		if (ins < 0) {
			out_ << formatk(ins);
			return;
		}
		const IrIns *i = at(ins);
		// CARG chains point backwards; the bound only stops a corrupt one.
		if (i && op_name(i->op) == "CARG  " && depth < 256) {
			call_args(operand(*i, 1), depth + 1);
			int64_t op2 = operand(*i, 2);
			out_ << " " << (op2 < 0 ? formatk(op2) : fmt("%04d", int(op2)));
		} else {
			out_ << fmt("%04d", int(ins));
		}
	}

	// The name dump.lua's litname table gives a literal operand, if any.
	std::optional<std::string> literal_name(const std::string &op, uint16_t v) const
	{
		auto from = [&](std::span<const char *const> names) -> std::optional<std::string> {
			if (v < names.size())
				return std::string(names[v]);
			return std::nullopt;
		};
		if (op == "SLOAD ") {
			std::string s;
			const char flags[] = "PFTCRIK";
			for (int b = 0; b < 7; b++)
				if (v & (1u << b))
					s += flags[b];
			return s;
		}
		if (op == "XLOAD ") {
			static const char *const x[] = {"", "R", "V", "RV", "U", "RU", "VU", "RVU"};
			return from(x);
		}
		if (op == "CONV  ") {
			std::string s =
				std::string(irtype_name((v >> 5) & 31)) + "." + irtype_name(v & 31);
			if (v & 0x800)
				s += " sext";
			unsigned c = v >> 12;
			if (c == 1)
				s += " none";
			else if (c == 2)
				s += " index";
			else if (c == 3)
				s += " check";
			return s;
		}
		if (op == "FLOAD " || op == "FREF  ")
			return from(names_.fields);
		if (op == "FPMATH")
			return from(lj_irfpm);
		if (op == "TMPREF") {
			static const char *const x[] = {"", "IN", "OUT",  "INOUT",
							"", "",   "OUT2", "INOUT2"};
			return from(x);
		}
		if (op == "BUFHDR") {
			static const char *const x[] = {"RESET", "APPEND", "WRITE"};
			return from(x);
		}
		if (op == "TOSTR ") {
			static const char *const x[] = {"INT", "NUM", "CHAR"};
			return from(x);
		}
		return std::nullopt;
	}

	void instruction(int64_t ins) const
	{
		const IrIns *i = at(ins);
		if (!i) {
			out_ << fmt("%04d ?\n", int(ins));
			return;
		}
		std::string op = op_name(i->op);
		if (op == "LOOP  ") {
			out_ << fmt("%04d ------------ LOOP ------------\n", int(ins));
			return;
		}
		if (op == "NOP   " || op == "CARG  ")
			return;
		unsigned rid = i->prev & 0xff;
		unsigned t = i->type & LJ_IRT_TYPE;
		out_ << fmt("%04d %-6s", int(ins), ridsp_name(i->prev, ins).c_str());
		out_ << ((rid == 254 || rid == 253) ? "}"
			 : (i->type & LJ_IRT_GUARD) ? ">"
						    : " ")
		     << ((i->type & LJ_IRT_ISPHI) ? "+" : " ") << " " << irtype_name(t) << " " << op
		     << " ";
		unsigned m1 = mode1(*i), m2 = mode2(*i);
		int64_t op1 = operand(*i, 1), op2 = operand(*i, 2);
		if (op.starts_with("CALL")) {
			std::string ctype;
			if (m2 == 1)
				out_ << fmt("%-10s  (", size_t(op2) < names_.calls.size()
								? names_.calls[size_t(op2)]
								: "?");
			else
				ctype = call_func(op2);
			if (op1 != -1)
				call_args(op1);
			out_ << ")";
			if (!ctype.empty())
				out_ << " ctype " << ctype;
		} else if (op == "CNEW  " && op2 == -1) {
			out_ << formatk(op1);
		} else if (m1 != 3) {
			if (op1 < 0)
				out_ << formatk(op1);
			else
				out_ << fmt(m1 == 0 ? "%04d" : "#%-3d", int(op1));
			if (m2 != 3) {
				if (m2 == 1) {
					auto name = literal_name(op, uint16_t(op2));
					if (name)
						out_ << "  " << *name;
					else if (op == "UREFO " || op == "UREFC ")
						out_ << fmt("  #%-3d", int(op2 >> 8));
					else
						out_ << fmt("  #%-3d", int(op2));
				} else if (op2 < 0) {
					out_ << "  " << formatk(op2);
				} else {
					out_ << fmt("  %04d", int(op2));
				}
			}
		}
		out_ << "\n";
	}

	std::ostream &out_;
	const Trace &t_;
	const std::vector<std::string> &register_names_;
	const ForkNames &names_;
	std::array<lj_ir_op, 256> modes_;
};

} // namespace

const char *irtype_name(unsigned t)
{
	return t < std::size(irtype_names) ? irtype_names[t] : "???";
}

void render_trace_ir(std::ostream &out, const TraceSet &set, const Trace &t)
{
	IrDump(out, set, t).dump();
}

} // namespace ljcore
