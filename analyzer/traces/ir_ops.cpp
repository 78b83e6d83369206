#include "analyzer/traces/ir_ops.h"

#include <array>
#include <span>

namespace ljcore {

namespace {

// lj_ir_ops' number of each of a fork's opcodes; 0xff: none.
std::array<uint8_t, 256> canonical_numbers(std::span<const lj_ir_op> ops)
{
	std::array<uint8_t, 256> to_canonical;
	to_canonical.fill(0xff);
	for (size_t o = 0; o < ops.size(); o++)
		if (int c = ir_op(ops[o].name); c >= 0)
			to_canonical[o] = uint8_t(c);
	return to_canonical;
}

} // namespace

int ir_op(std::string_view name)
{
	for (size_t o = 0; o < std::size(lj_ir_ops); o++)
		if (name == lj_ir_ops[o].name)
			return int(o);
	return -1;
}

uint8_t canonical_ir_op(std::string_view fork, uint8_t raw)
{
	static const std::array<uint8_t, 256> tarantool = canonical_numbers(lj_ir_ops_tarantool);
	return fork == "tarantool" ? tarantool[raw] : raw;
}

} // namespace ljcore
