#include "analyzer/lua/lua_debug.h"

#include <cstring>

#include "luajit/bytecode.h"

namespace ljcore {

namespace {

// LUA_IDSIZE in luaconf.h: the size of short_src including its NUL.
constexpr size_t lua_idsize = 60;
// Caps that keep hostile input from making us read without end.
constexpr uint32_t max_sizebc = 1u << 24;
constexpr size_t max_varinfo = 1u << 20;

std::string miss_text(const char *what, uint64_t addr, const ReadMiss &m)
{
	return std::string("reading ") + what + " at " + hex(addr) + ": " + m.reason + " at " +
	       luajit_pointer(m.addr);
}

template <typename T>
Expected<T> need(std::expected<T, ReadMiss> v, const char *what, uint64_t addr)
{
	if (!v)
		return fail(miss_text(what, addr, v.error()));
	return *v;
}

// A ULEB128 as lj_buf_ruleb128() reads it from varinfo.
uint32_t read_uleb128(const std::vector<uint8_t> &buf, size_t &p)
{
	uint32_t v = 0;
	for (int shift = 0; p < buf.size() && shift < 35; shift += 7) {
		uint8_t b = buf[p++];
		v |= uint32_t(b & 0x7f) << shift;
		if (b < 0x80)
			break;
	}
	return v;
}

// Names of the internal variables of for loops (VARNAMEDEF in lj_debug.h).
const char *const for_varnames[] = {
	"(for index)",     "(for limit)", "(for step)",
	"(for generator)", "(for state)", "(for control)",
};
constexpr uint8_t varname_max = 7; // VARNAME__MAX

} // namespace

Expected<Proto> read_proto(const Vm &mem, uint64_t pt)
{
	const lj_layout &ly = mem.layout();
	Proto p;
	p.addr = pt;
	auto gct = need(mem.gct(pt), "GCproto", pt);
	if (!gct)
		return std::unexpected(gct.error());
	if (*gct != LJ_TPROTO)
		return fail("object at " + luajit_pointer(pt) + " is not a GCproto");
	// Read every field; the first miss names the object it spoiled.
	std::optional<ReadMiss> miss;
	auto field = [&](auto read) {
		auto v = read();
		if (!v && !miss)
			miss = v.error();
		return v.value_or(0);
	};
	uint32_t sizebc = field([&] { return mem.value<uint32_t>(pt + ly.pt_sizebc); });
	p.sizeuv = field([&] { return mem.value<uint8_t>(pt + ly.pt_sizeuv); });
	p.numparams = field([&] { return mem.value<uint8_t>(pt + ly.pt_numparams); });
	p.flags = field([&] { return mem.value<uint8_t>(pt + ly.pt_flags); });
	p.k = field([&] { return mem.ref(pt + ly.pt_k); });
	p.chunkname = field([&] { return mem.ref(pt + ly.pt_chunkname); });
	p.firstline = field([&] { return mem.value<int32_t>(pt + ly.pt_firstline); });
	p.numline = field([&] { return mem.value<int32_t>(pt + ly.pt_numline); });
	p.lineinfo = field([&] { return mem.ref(pt + ly.pt_lineinfo); });
	p.uvinfo = field([&] { return mem.ref(pt + ly.pt_uvinfo); });
	p.varinfo = field([&] { return mem.ref(pt + ly.pt_varinfo); });
	if (miss)
		return fail(miss_text("GCproto", pt, *miss));
	if (sizebc == 0 || sizebc > max_sizebc)
		return fail("GCproto at " + luajit_pointer(pt) + " has implausible sizebc " +
			    std::to_string(sizebc));
	p.sizebc = sizebc;
	p.bc = pt + ly.pt_size;
	return p;
}

Expected<Proto> function_proto(const Vm &mem, uint64_t fn)
{
	// GCfuncL.pc points at the first instruction, which follows the
	// GCproto header (funcproto() in lj_obj.h).
	auto pc = need(mem.ref(fn + mem.layout().fn_pc), "GCfunc", fn);
	if (!pc)
		return std::unexpected(pc.error());
	return read_proto(mem, *pc - mem.layout().pt_size);
}

uint32_t bc_position(const Proto &pt, uint64_t pc)
{
	if (pc == 0 || pc < pt.bc || (pc - pt.bc) % 4 != 0)
		return no_bcpos;
	uint64_t pos = (pc - pt.bc) / 4 - 1;
	// Past the end: a pc inside a trace (JLOOP undo) or garbage.
	return pos <= pt.sizebc ? uint32_t(pos) : no_bcpos;
}

Expected<int32_t> proto_line(const Vm &mem, const Proto &pt, uint32_t pos)
{
	if (pos > pt.sizebc || pt.lineinfo == 0)
		return 0;
	if (pos == pt.sizebc)
		return pt.firstline + pt.numline;
	if (pos == 0)
		return pt.firstline;
	pos--;
	uint64_t at;
	uint32_t delta;
	if (pt.numline < 256) {
		at = pt.lineinfo + pos;
		auto v = need(mem.value<uint8_t>(at), "lineinfo", at);
		if (!v)
			return std::unexpected(v.error());
		delta = *v;
	} else if (pt.numline < 65536) {
		at = pt.lineinfo + 2 * uint64_t(pos);
		auto v = need(mem.value<uint16_t>(at), "lineinfo", at);
		if (!v)
			return std::unexpected(v.error());
		delta = *v;
	} else {
		at = pt.lineinfo + 4 * uint64_t(pos);
		auto v = need(mem.value<uint32_t>(at), "lineinfo", at);
		if (!v)
			return std::unexpected(v.error());
		delta = *v;
	}
	return pt.firstline + int32_t(delta);
}

std::string short_source(const std::string &src, int32_t firstline)
{
	if (!src.empty() && src[0] == '=')
		return src.substr(1, lua_idsize - 1);
	if (!src.empty() && src[0] == '@') {
		std::string name = src.substr(1);
		if (name.size() >= lua_idsize)
			return "..." + name.substr(name.size() - (lua_idsize - 4));
		return name;
	}
	// [string "..."] up to the first control character; builtin chunks
	// (firstline ~0) print as [builtin:...].
	bool builtin = firstline == -1;
	size_t len = 0;
	while (len < lua_idsize - 12 && len < src.size() &&
	       static_cast<unsigned char>(src[len]) >= ' ')
		len++;
	std::string out = builtin ? "[builtin:" : "[string \"";
	if (len < src.size()) {
		len = std::min(len, lua_idsize - 15);
		out += src.substr(0, len) + "...";
	} else {
		out += src;
	}
	return out + (builtin ? "]" : "\"]");
}

Expected<std::vector<std::string>> live_variables(const Vm &mem, const Proto &pt, uint32_t pos)
{
	std::vector<std::string> live;
	if (pt.varinfo == 0)
		return live;
	// Read varinfo in pages until its end marker; it is a sequence of
	// (name or VARNAME_* code, start delta, length) records.
	std::vector<uint8_t> buf;
	size_t p = 0;
	auto ensure = [&](size_t n) -> Expected<bool> {
		while (buf.size() < n) {
			if (buf.size() >= max_varinfo)
				return false;
			size_t old = buf.size();
			buf.resize(old + 256);
			auto r = mem.memory().read(
				pt.varinfo + old,
				std::as_writable_bytes(std::span(buf).subspan(old)));
			if (!r) {
				// A short tail is fine as long as what we need is there.
				buf.resize(old);
				for (size_t i = 0; i < 256; i++) {
					uint8_t b;
					if (!mem.memory().read(
						    pt.varinfo + old + i,
						    std::as_writable_bytes(std::span(&b, 1))))
						break;
					buf.push_back(b);
				}
				if (buf.size() < n)
					return fail(miss_text("varinfo", pt.varinfo, r.error()));
			}
		}
		return true;
	};
	uint32_t lastpc = 0;
	for (;;) {
		auto ok = ensure(p + 16);
		if (!ok)
			return std::unexpected(ok.error());
		if (p >= buf.size())
			return live;
		size_t name_at = p;
		uint8_t vn = buf[p];
		if (vn < varname_max) {
			if (vn == 0)
				return live; // VARNAME_END
		} else {
			for (;;) {
				if (auto r = ensure(p + 2); !r)
					return std::unexpected(r.error());
				if (p + 1 >= buf.size())
					return live;
				if (buf[++p] == 0)
					break;
			}
		}
		p++;
		if (auto r = ensure(p + 10); !r)
			return std::unexpected(r.error());
		uint32_t startpc = lastpc + read_uleb128(buf, p);
		lastpc = startpc;
		if (startpc > pos)
			return live;
		uint32_t endpc = startpc + read_uleb128(buf, p);
		if (pos < endpc)
			live.emplace_back(vn < varname_max
						  ? for_varnames[vn - 1]
						  : reinterpret_cast<const char *>(&buf[name_at]));
	}
}

Expected<std::string> upvalue_name(const Vm &mem, const Proto &pt, uint32_t index)
{
	if (pt.uvinfo == 0 || index >= pt.sizeuv)
		return std::string();
	// uvinfo holds sizeuv NUL-terminated names back to back.
	std::string names;
	uint64_t at = pt.uvinfo;
	uint32_t seen = 0;
	for (size_t i = 0; i < max_varinfo; i++) {
		auto c = need(mem.value<char>(at + i), "uvinfo", at);
		if (!c)
			return std::unexpected(c.error());
		if (*c == 0) {
			if (seen++ == index)
				return names;
			names.clear();
		} else {
			names += *c;
		}
	}
	return fail("uvinfo at " + luajit_pointer(at) + " has no end");
}

namespace {

Expected<std::string> constant_string(const Vm &mem, const Proto &pt, uint32_t index)
{
	// proto_kgc(pt, ~index): GC constants sit below k, counted downwards.
	uint64_t at = pt.k - uint64_t(index + 1) * mem.layout().ptrsize;
	auto ref = need(mem.ref(at), "GC constant", at);
	if (!ref)
		return std::unexpected(ref.error());
	auto s = need(mem.str(*ref), "GCstr", *ref);
	return s;
}

// A prototype's instructions, read a chunk at a time as they are asked
// for: slot_name() looks back from the call only as far as it must, and a
// corrupt pc claiming a position 2^24 instructions in costs no more than
// the instructions actually read. A chunk ends at the position asked for,
// as the scan goes backwards: nothing past the call is read.
class Bytecode {
public:
	Bytecode(const Vm &mem, const Proto &pt) : mem_(mem), pt_(pt) {}

	Expected<uint32_t> at(uint32_t pos)
	{
		if (pos - first_ >= chunk_.size()) {
			uint32_t first = pos + 1 > chunk_ins ? pos + 1 - chunk_ins : 0;
			chunk_.resize(pos + 1 - first);
			uint64_t addr = pt_.bc + uint64_t(first) * 4;
			auto r =
				mem_.memory().read(addr, std::as_writable_bytes(std::span(chunk_)));
			if (!r) {
				chunk_.clear();
				return fail(miss_text("bytecode", addr, r.error()));
			}
			first_ = first;
		}
		return chunk_[pos - first_];
	}

private:
	// 4 KB: the whole of most functions.
	static constexpr uint32_t chunk_ins = 1024;

	const Vm &mem_;
	const Proto &pt_;
	std::vector<uint32_t> chunk_;
	uint32_t first_ = 0;
};

// lj_debug_slotname(): what the instructions before pos put into slot.
Expected<FunctionName> slot_name(const Vm &mem, const Proto &pt, Bytecode &bc, uint32_t pos,
				 uint32_t slot)
{
	for (;;) {
		auto live = live_variables(mem, pt, pos);
		if (!live)
			return std::unexpected(live.error());
		if (slot < live->size())
			return FunctionName{"local", (*live)[slot]};
		bool restart = false;
		while (!restart && pos-- > 1) {
			// ip > proto_bc(pt): instruction 0 is never looked at.
			auto at = bc.at(pos);
			if (!at)
				return std::unexpected(at.error());
			uint32_t ins = *at, op = LJ_BC_OP(ins), ra = LJ_BC_A(ins);
			if (op >= LJ_BC_COUNT)
				return FunctionName{};
			uint8_t amode = lj_bcdefs[op].amode;
			if (amode == LJ_BCM_BASE) {
				if (slot >= ra && (std::strcmp(lj_bcdefs[op].name, "KNIL") != 0 ||
						   slot <= LJ_BC_D(ins)))
					return FunctionName{};
			} else if (amode == LJ_BCM_DST && ra == slot) {
				std::string_view name = lj_bcdefs[op].name;
				if (name == "MOV") {
					slot = LJ_BC_D(ins);
					restart = true;
				} else if (name == "GGET") {
					auto s = constant_string(mem, pt, LJ_BC_D(ins));
					if (!s)
						return std::unexpected(s.error());
					return FunctionName{"global", *s};
				} else if (name == "TGETS") {
					auto s = constant_string(mem, pt, LJ_BC_C(ins));
					if (!s)
						return std::unexpected(s.error());
					if (pos > 0) {
						auto before = bc.at(pos - 1);
						if (!before)
							return std::unexpected(before.error());
						uint32_t prev = *before;
						if (std::string_view(
							    lj_bcdefs[LJ_BC_OP(prev) % LJ_BC_COUNT]
								    .name) == "MOV" &&
						    LJ_BC_A(prev) == ra + 1 + mem.layout().fr2 &&
						    LJ_BC_D(prev) == LJ_BC_B(ins))
							return FunctionName{"method", *s};
					}
					return FunctionName{"field", *s};
				} else if (name == "UGET") {
					auto s = upvalue_name(mem, pt, LJ_BC_D(ins));
					if (!s)
						return std::unexpected(s.error());
					return FunctionName{"upvalue", *s};
				} else {
					return FunctionName{};
				}
			}
		}
		if (!restart)
			return FunctionName{};
	}
}

} // namespace

Expected<FunctionName> name_from_caller(const Vm &mem, const Proto &caller, uint32_t pos)
{
	if (pos >= caller.sizebc)
		return FunctionName{};
	Bytecode bc(mem, caller);
	auto at = bc.at(pos);
	if (!at)
		return std::unexpected(at.error());
	uint32_t ins = *at, op = LJ_BC_OP(ins);
	if (op >= LJ_BC_COUNT)
		return fail("unknown bytecode " + std::to_string(op) + " at the call site");
	uint8_t mm = lj_bcdefs[op].mm;
	if (mm == LJ_MM_call) {
		uint32_t slot = LJ_BC_A(ins);
		if (std::string_view(lj_bcdefs[op].name) == "ITERC")
			slot -= 3;
		return slot_name(mem, caller, bc, pos, slot);
	}
	if (mm != LJ_MM_NONE)
		return FunctionName{"metamethod", lj_mm_names[mm]};
	return FunctionName{};
}

} // namespace ljcore
