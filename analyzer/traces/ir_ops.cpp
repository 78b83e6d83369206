#include "analyzer/traces/ir_ops.h"

#include <array>

namespace ljcore {

namespace {

const IrNames upstream{lj_ir_ops, lj_irfield_upstream, lj_ircall_upstream, lj_ffnames_upstream};
const IrNames luajit2{lj_ir_ops, lj_irfield_luajit2, lj_ircall_luajit2, lj_ffnames_luajit2};
const IrNames tarantool{lj_ir_ops_tarantool, lj_irfield_tarantool, lj_ircall_tarantool,
			lj_ffnames_tarantool};

// The fork's number of each of lj_ir_ops' opcodes, and back; 0xff: none.
struct Numbering {
	std::array<uint8_t, 256> to_canonical, from_canonical;
	explicit Numbering(std::span<const lj_ir_op> ops)
	{
		to_canonical.fill(0xff);
		from_canonical.fill(0xff);
		for (size_t o = 0; o < ops.size(); o++)
			if (int c = ir_op(ops[o].name); c >= 0) {
				to_canonical[o] = uint8_t(c);
				from_canonical[size_t(c)] = uint8_t(o);
			}
	}
};

const Numbering &tarantool_numbering()
{
	static const Numbering n(tarantool.ops);
	return n;
}

} // namespace

const IrNames &ir_names(std::string_view fork)
{
	return fork == "tarantool" ? tarantool : fork == "luajit2" ? luajit2 : upstream;
}

int ir_op(std::string_view name)
{
	for (size_t o = 0; o < std::size(lj_ir_ops); o++)
		if (name == lj_ir_ops[o].name)
			return int(o);
	return -1;
}

uint8_t canonical_ir_op(std::string_view fork, uint8_t raw)
{
	return fork == "tarantool" ? tarantool_numbering().to_canonical[raw] : raw;
}

lj_ir_op ir_op_modes(std::string_view fork, uint8_t op)
{
	const IrNames &names = ir_names(fork);
	uint8_t own = fork == "tarantool" ? tarantool_numbering().from_canonical[op] : op;
	return own < names.ops.size() ? names.ops[own] : lj_ir_op{"?", 3, 3};
}

} // namespace ljcore
