#include "analyzer/derive/machine_operands.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <charconv>
#include <cstring>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ljcore {

namespace {

// An x86_64 register name as its 64-bit register's DWARF number and the
// bytes it covers. Views, not C strings: every operand of every
// instruction is compared with each name, and a view knows its length
// without strlen.
struct X86Alias {
	std::string_view name;
	Reg reg;
	uint8_t width;
};
// DWARF numbers of the x86_64 psABI.
enum : Reg { rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8, r9 };
constexpr Reg x86_xmm0 = 17;
// clang-format off
constexpr X86Alias x86_aliases[] = {
	{"rax", rax, 8}, {"eax", rax, 4}, {"ax", rax, 2}, {"al", rax, 1},
	{"rbx", rbx, 8}, {"ebx", rbx, 4}, {"bx", rbx, 2}, {"bl", rbx, 1},
	{"rcx", rcx, 8}, {"ecx", rcx, 4}, {"cx", rcx, 2}, {"cl", rcx, 1},
	{"rdx", rdx, 8}, {"edx", rdx, 4}, {"dx", rdx, 2}, {"dl", rdx, 1},
	{"rsi", rsi, 8}, {"esi", rsi, 4}, {"si", rsi, 2}, {"sil", rsi, 1},
	{"rdi", rdi, 8}, {"edi", rdi, 4}, {"di", rdi, 2}, {"dil", rdi, 1},
	{"rbp", rbp, 8}, {"ebp", rbp, 4}, {"bp", rbp, 2}, {"bpl", rbp, 1},
	{"rsp", rsp, 8}, {"esp", rsp, 4}, {"sp", rsp, 2}, {"spl", rsp, 1},
	{"rip", x86_rip, 8}, {"ah", rax, 1},  {"bh", rbx, 1}, {"ch", rcx, 1},
	{"dh", rdx, 1},
};
// clang-format on
// AArch64's: x0..x30 are 0..30.
constexpr Reg arm64_sp = 31, arm64_v0 = 64;

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
		s.remove_suffix(1);
	return s;
}

// The x86_64 alias named s, if any: a hash lookup, not a scan, as every
// operand of every instruction comes here, most of them not registers.
const X86Alias *x86_alias(std::string_view s)
{
	static const std::unordered_map<std::string_view, const X86Alias *> by_name = [] {
		std::unordered_map<std::string_view, const X86Alias *> m;
		for (const X86Alias &a : x86_aliases)
			m.emplace(a.name, &a);
		return m;
	}();
	if (s.size() < 2 || s.size() > 3)
		return nullptr;
	auto it = by_name.find(s);
	return it == by_name.end() ? nullptr : it->second;
}

// How many decimal digits s has from at on.
size_t digits_from(std::string_view s, size_t at)
{
	size_t n = 0;
	while (at + n < s.size() && isdigit(uint8_t(s[at + n])))
		n++;
	return n;
}

// The number s spells in decimal, if it does and is below limit.
std::optional<unsigned> small_number(std::string_view s, unsigned limit)
{
	unsigned n = 0;
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
	if (s.empty() || ec != std::errc() || end != s.data() + s.size() || n >= limit)
		return std::nullopt;
	return n;
}

// A register name, or false. x86: r8..r15 with their d/w/b forms too.
bool parse_register(std::string_view s, Arch arch, Operand &op)
{
	if (arch == Arch::x86_64) {
		if (const X86Alias *a = x86_alias(s)) {
			op.kind = OperandKind::reg, op.reg = a->reg, op.width = a->width;
			return true;
		}
		if (s.size() >= 2 && s[0] == 'r' && s[1] >= '0' && s[1] <= '9') {
			size_t digits = digits_from(s, 1);
			std::string_view suffix = s.substr(1 + digits);
			uint8_t width = suffix.empty()  ? 8
					: suffix == "d" ? 4
					: suffix == "w" ? 2
					: suffix == "b" ? 1
							: 0;
			auto n = small_number(s.substr(1, digits), 16);
			if (!width || !n || *n < 8)
				return false;
			op.kind = OperandKind::reg, op.width = width, op.reg = Reg(*n);
			return true;
		}
		if (s.starts_with("xmm") || s.starts_with("ymm")) {
			auto n = small_number(s.substr(3), 16);
			if (!n)
				return false;
			op.kind = OperandKind::reg, op.reg = Reg(x86_xmm0 + *n), op.width = 16;
			return true;
		}
		return false;
	}
	if (s == "xzr" || s == "wzr") {
		op.kind = OperandKind::reg, op.reg = arm64_xzr, op.zero = true;
		op.width = s[0] == 'x' ? 8 : 4;
		return true;
	}
	if (s == "sp" || s == "wsp") {
		op.kind = OperandKind::reg, op.reg = arm64_sp, op.width = 8;
		return true;
	}
	if (s.size() >= 2 && (s[0] == 'x' || s[0] == 'w')) {
		auto n = small_number(s.substr(1), 31);
		if (!n)
			return false;
		op.kind = OperandKind::reg, op.reg = Reg(*n);
		op.width = s[0] == 'x' ? 8 : 4;
		return true;
	}
	// Vector and floating-point registers ("d0", "v1.16b"): never
	// followed, but written.
	if (s.size() >= 2 && strchr("bhsdqv", s[0]) && isdigit(uint8_t(s[1]))) {
		auto n = small_number(s.substr(1, digits_from(s, 1)), 32);
		if (!n)
			return false;
		op.kind = OperandKind::reg, op.reg = Reg(arm64_v0 + *n), op.width = 0;
		return true;
	}
	return false;
}

bool parse_number(std::string_view s, int64_t &v)
{
	if (!s.empty() && s[0] == '#')
		s.remove_prefix(1);
	bool negative = !s.empty() && s[0] == '-';
	if (negative)
		s.remove_prefix(1);
	int base = 10;
	if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s.remove_prefix(2);
	if (s.empty() || s.size() > 20)
		return false;
	uint64_t u = 0;
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), u, base);
	if (ec != std::errc() || end != s.data() + s.size())
		return false;
	// Negated as unsigned: -0x8000000000000000 is a valid immediate, and
	// negating it as int64_t would overflow.
	v = int64_t(negative ? 0 - u : u);
	return true;
}

// x86: "qword ptr [rdi + 8*rax - 0x8]", "[rip + 0x10]", "fs:[0x28]".
void parse_x86_memory(std::string_view s, Operand &op)
{
	// "qword ptr [...]": the first word, when "ptr " follows it.
	op.width = ljcore_mc_x86_text_width(s.data(), s.size());
	size_t open = s.find('['), close = s.rfind(']');
	if (open == s.npos || close == s.npos || close < open || s.find(':') < open)
		return; // a segment (fs:, gs:) is thread-local: not an object
	std::string_view inner = s.substr(open + 1, close - open - 1);
	op.kind = OperandKind::mem;
	int sign = 1;
	while (!inner.empty()) {
		size_t next = inner.find_first_of("+-", 1);
		std::string_view term = trim(inner.substr(0, next));
		Operand r;
		int64_t v;
		if (size_t star = term.find('*'); star != term.npos) {
			int64_t scale;
			if (parse_register(trim(term.substr(star + 1)), Arch::x86_64, r) &&
			    parse_number(trim(term.substr(0, star)), scale) && scale > 0 &&
			    scale <= 8)
				op.index = r.reg, op.scale = uint8_t(scale);
			else
				op.kind = OperandKind::other;
		} else if (parse_register(term, Arch::x86_64, r)) {
			if (op.reg == no_reg && sign > 0)
				op.reg = r.reg;
			else
				op.index = r.reg;
		} else if (parse_number(term, v)) {
			op.value += sign * v;
		} else {
			op.kind = OperandKind::other;
			return;
		}
		if (next == inner.npos)
			break;
		sign = inner[next] == '-' ? -1 : 1;
		inner = inner.substr(next + 1);
	}
}

// AArch64: "[x0, #0x20]", "[sp, #-0x30]!", "[x1, x2, lsl #3]", "[x0]" (which
// a post-index may follow as the next operand: "[x0], #0x10").
void parse_arm64_memory(std::string_view s, Operand &op)
{
	size_t close = s.find(']');
	if (close == s.npos)
		return;
	std::string_view inner = s.substr(1, close - 1);
	op.kind = OperandKind::mem;
	op.writeback = s.substr(close + 1).starts_with('!');
	size_t part = 0;
	while (!inner.empty()) {
		size_t comma = inner.find(',');
		std::string_view term = trim(inner.substr(0, comma));
		Operand r;
		int64_t v;
		if (part == 0 && parse_register(term, Arch::aarch64, r))
			op.reg = r.reg;
		else if (part == 1 && parse_number(term, v))
			op.value = v;
		else if (part >= 1 && parse_register(term, Arch::aarch64, r))
			op.index = r.reg;
		else if (part == 2 && op.index != no_reg && term.find('#') != term.npos &&
			 parse_number(term.substr(term.find('#') + 1), v) && v >= 0 && v <= 4)
			op.scale = uint8_t(1 << v); // "lsl #3", "uxtw #3": the index shifted
		else if (part < 2) {
			op.kind = OperandKind::other;
			return;
		}
		part++;
		if (comma == inner.npos)
			break;
		inner = inner.substr(comma + 1);
	}
}

// The operand s starts with, up to the first comma outside brackets, and
// whether there was one; s goes on after it. No vector of them: this runs
// for every instruction decoded.
std::string_view next_operand(std::string_view &s, bool &comma)
{
	size_t length = ljcore_mc_operand_length(s.data(), s.size());
	std::string_view operand = trim(s.substr(0, length));
	comma = length < s.size();
	s = comma ? s.substr(length + 1) : std::string_view();
	return operand;
}

// The bytes an AArch64 load or store moves per register, from its
// mnemonic and data register: ldrb 1, ldrsh 2, ldrsw 4, else the register.
uint8_t arm64_access_width(std::string_view mnemonic, const Operand &data)
{
	if (mnemonic.ends_with("b"))
		return 1;
	if (mnemonic.ends_with("h"))
		return 2;
	if (mnemonic.ends_with("sw"))
		return 4;
	return data.width;
}

} // namespace

Operation operation_of(const MachineInsn &insn, Arch arch)
{
	Operation op;
	op.addr = insn.addr;
	op.size = uint8_t(insn.size);
	op.branch_to = insn.branch_to;
	if (insn.undecodable)
		return op;
	std::string_view text = trim(insn.text);
	// x86 prefixes that do not change what is read: "lock", "rep", "repne"
	// (also MPX's bnd, as "repne ret"), "notrack".
	// Compared as the first word, whose length rules out most at once.
	size_t space = text.find(' ');
	for (std::string_view prefix : {"lock", "notrack", "rep", "repne"})
		if (space != text.npos && text.substr(0, space) == prefix) {
			text = trim(text.substr(space + 1));
			space = text.find(' ');
		}
	op.mnemonic = text.substr(0, space);
	if (space == text.npos)
		return op;
	std::string_view rest = text.substr(space + 1);
	for (bool comma = true; comma;) {
		std::string_view s = next_operand(rest, comma);
		// An empty last operand ("x, ") is none; one between commas is
		// an operand of kind other.
		if (s.empty() && !comma)
			break;
		Operand o;
		int64_t v;
		if (parse_register(s, arch, o))
			;
		else if (s.find('[') != s.npos)
			arch == Arch::x86_64 ? parse_x86_memory(s, o) : parse_arm64_memory(s, o);
		else if (parse_number(s, v))
			o.kind = OperandKind::imm, o.value = v;
		op.operands.push_back(o);
	}
	if (arch == Arch::aarch64 && !op.operands.empty())
		for (Operand &o : op.operands)
			if (o.kind == OperandKind::mem)
				o.width = arm64_access_width(op.mnemonic, op.operands[0]);
	return op;
}

namespace {

// The operand of LLVM's register reg, as x86_64's parts number registers:
// its name read as in text, once per register and thread. LLVM's x86
// registers number some 300.
const Operand &x86_register(const Disassembler &dis, unsigned reg)
{
	static const Operand none;
	constexpr size_t registers = 1024;
	thread_local std::array<Operand, registers> named;
	thread_local std::bitset<registers> known;
	if (reg >= registers)
		return none;
	if (!known[reg]) {
		std::string name(dis.register_name(reg));
		for (char &c : name)
			c = char(tolower(uint8_t(c)));
		parse_register(name, Arch::x86_64, named[reg]);
		known[reg] = true;
	}
	return named[reg];
}

} // namespace

Operation operation_of(const ljcore_mc_operation &parts, uint64_t addr, size_t size,
		       const Disassembler &dis)
{
	Operation op;
	op.addr = addr;
	op.size = uint8_t(size);
	if (parts.has_branch)
		op.branch_to = parts.branch_to;
	op.mnemonic = std::string_view(parts.mnemonic);
	for (unsigned i = 0; i < parts.operand_count && i < std::size(parts.operands); i++) {
		const ljcore_mc_operand &part = parts.operands[i];
		Operand o;
		if (part.kind == LJCORE_MC_REG) {
			o = x86_register(dis, part.reg);
		} else if (part.kind == LJCORE_MC_IMM) {
			o.kind = OperandKind::imm, o.value = part.value;
		} else if (part.kind == LJCORE_MC_MEM) {
			const Operand &base = x86_register(dis, part.reg);
			const Operand &index = x86_register(dis, part.index);
			// A register the text would not read makes the operand
			// other there too.
			bool read = (!part.reg || base.kind == OperandKind::reg) &&
				    (!part.index || index.kind == OperandKind::reg);
			o.kind = read ? OperandKind::mem : OperandKind::other;
			o.reg = part.reg ? base.reg : no_reg;
			o.index = part.index ? index.reg : no_reg;
			o.scale = part.scale, o.value = part.value, o.width = part.width;
			// "[rax + 0x10]" of an index alone, times 1: the text's base.
			if (o.reg == no_reg && o.scale == 1)
				std::swap(o.reg, o.index);
		}
		op.operands.push_back(o);
	}
	return op;
}

bool LazyOperations::decode_next()
{
	if (decoded_ >= code_.size())
		return false;
	// Most paths end within a few dozen instructions.
	if (ops_.empty())
		ops_.reserve(32);
	// Read from its parts when LLVM gives them (x86_64), else from its
	// text.
	if (size_t n = dis_.describe(code_.subspan(decoded_), addr_ + decoded_, parts_)) {
		ops_.push_back(operation_of(parts_, addr_ + decoded_, n, dis_));
		decoded_ += n;
		return true;
	}
	dis_.decode(code_.subspan(decoded_), addr_ + decoded_, insn_);
	decoded_ += insn_.size;
	ops_.push_back(operation_of(insn_, arch_));
	return true;
}

const Operation *LazyOperations::at(size_t i)
{
	while (ops_.size() <= i)
		if (!decode_next())
			return nullptr;
	return &ops_[i];
}

std::optional<size_t> LazyOperations::index_of(uint64_t addr)
{
	while (addr_ + decoded_ <= addr)
		if (!decode_next())
			return std::nullopt;
	auto it = std::lower_bound(ops_.begin(), ops_.end(), addr,
				   [](const Operation &o, uint64_t a) { return o.addr < a; });
	if (it == ops_.end() || it->addr != addr)
		return std::nullopt;
	return size_t(it - ops_.begin());
}

bool caller_saved(Reg reg, Arch arch)
{
	if (arch == Arch::x86_64)
		return !(reg == rbx || reg == rbp || reg == rsp || (reg >= 12 && reg <= 15));
	// x19..x29 and sp survive a call.
	return !((reg >= 19 && reg <= 29) || reg == arm64_sp);
}

std::span<const Reg> argument_registers(Arch arch)
{
	static constexpr Reg x86[] = {rdi, rsi, rdx, rcx, r8, r9};
	static constexpr Reg a64[] = {0, 1, 2, 3, 4, 5, 6, 7};
	if (arch == Arch::x86_64)
		return x86;
	return a64;
}

Reg return_register(Arch arch)
{
	return arch == Arch::x86_64 ? Reg(rax) : Reg(0);
}

Reg stack_register(Arch arch)
{
	return arch == Arch::x86_64 ? Reg(rsp) : arm64_sp;
}

} // namespace ljcore
