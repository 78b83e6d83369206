// ljcore print: the value of one expression in each VM.
#include "cli/render_print.h"

#include "cli/render.h"
#include "cli/render_bytes.h"
#include "cli/render_values.h"

namespace ljcore {

void render_printed(std::ostream &out, std::ostream &err, const Analysis &a)
{
	for (const VmResult &vm : a.vms) {
		if (!vm.printed)
			continue;
		const PrintedValue &p = *vm.printed;
		// The VM is named only when there is more than one to tell apart.
		std::string vm_prefix =
			a.vms.size() > 1 ? "VM " + hex_address(vm.global_state) + ": " : "";
		if (p.found)
			out << vm_prefix << printable(p.expression) << " = "
			    << render_value(p.value) << "\n";
		else
			err << "ljcore: " << vm_prefix << printable(p.error) << "\n";
	}
}

void render_printed_json(std::ostream &out, const Analysis &a)
{
	nlohmann::json vms = nlohmann::json::array();
	for (const VmResult &vm : a.vms) {
		if (!vm.printed)
			continue;
		const PrintedValue &p = *vm.printed;
		nlohmann::json j = {{"global_state", hex(vm.global_state)},
				    {"root", p.root},
				    {"found", p.found}};
		if (p.slot)
			j["slot"] = hex(p.slot);
		if (p.found) {
			j["type"] = value_type_name(p.value);
			j["value"] = render_value(p.value);
			if (p.value.address)
				j["address"] = hex(p.value.address);
		} else {
			j["error"] = p.error;
		}
		vms.push_back(std::move(j));
	}
	nlohmann::json doc = {{"schema_version", Analysis::schema_version},
			      {"source", a.source},
			      {"expression", a.vms.empty() || !a.vms[0].printed
						     ? std::string()
						     : a.vms[0].printed->expression},
			      {"vms", std::move(vms)},
			      {"problems", a.diagnostics.problems()}};
	print_json(out, std::move(doc));
}

bool printed_everywhere(const Analysis &a)
{
	for (const VmResult &vm : a.vms)
		if (!vm.printed || !vm.printed->found)
			return false;
	return !a.vms.empty();
}

} // namespace ljcore
