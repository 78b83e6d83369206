// A layout that fits every word of global_State the locator checks but
// misplaces a GCproto's fields, as the tables did for a release that added
// one: the frames of a real core do not read under it, so the locator
// rejects it and takes the next layout, or, with no other, finds no VM and
// says why. Never `<:-1>` frames.
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "analyzer/locate/locate.h"
#include "analyzer/session.h"

using namespace ljcore;

static int failures = 0;

static void expect(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	failures += !ok;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORE\n", argv[0]);
		return 2;
	}
	if (!std::filesystem::exists(argv[1])) {
		printf("skip: no core %s (tools/make-cores.sh makes it)\n", argv[1]);
		return 77;
	}
	auto session = open_core(argv[1], FileLookup{});
	if (!session) {
		printf("FAIL cannot open %s: %s\n", argv[1], session.error().message.c_str());
		return 1;
	}
	const Target &target = *session->core;
	std::vector<NativeStack> stacks;
	for (auto &t : target.threads())
		stacks.push_back(session->native->unwind(t.tid));

	Diagnostics diag;
	LocatedVms located =
		locate_vms(target, *session->native, stacks, ScanMode::automatic, diag);
	if (located.vms.size() != 1) {
		printf("FAIL the core's VM not found with every layout\n");
		return 1;
	}
	const lj_layout &right = *located.vms[0].layout;
	printf("the VM's layout: %s\n", right.name);

	// GCproto one field longer: each function's prototype is looked for
	// 8 bytes before where it is.
	lj_layout wrong = right;
	wrong.pt_size += 8;
	wrong.name = "the right table with a longer GCproto";

	std::optional<Rejection> closest;
	Diagnostics both_diag;
	auto both = locate_with(target, *session->native, stacks, ScanMode::automatic,
				{&wrong, &right}, both_diag, closest);
	expect(both.size() == 1 && both[0].layout == &right,
	       "the wrong layout tried first is rejected, the right one taken");
	bool said = false;
	for (auto &e : both_diag.evidence())
		said |= e.find("rejected, its frames do not read") != std::string::npos &&
			e.find("is not a GCproto") != std::string::npos;
	expect(said, "--explain says the frames did not read, and why");

	closest.reset();
	Diagnostics alone_diag;
	auto alone = locate_with(target, *session->native, stacks, ScanMode::automatic, {&wrong},
				 alone_diag, closest);
	expect(alone.empty(), "the wrong layout alone finds no VM");
	expect(closest && closest->layout == wrong.name &&
		       closest->failed.find("is not a GCproto") != std::string::npos,
	       "the closest candidate failed on its frames");
	if (closest)
		printf("     closest: %s: %s\n", closest->layout.c_str(), closest->failed.c_str());
	return failures ? 1 : 0;
}
