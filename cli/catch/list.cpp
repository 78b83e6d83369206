#include "cli/catch/list.h"

#include <map>
#include <sstream>

#include "cli/catch/crash_dir.h"
#include "cli/catch/crash_report.h"
#include "cli/catch/files.h"
#include "cli/exit_codes.h"
#include "cli/render_bytes.h"

namespace ljcore::catching {

namespace {

std::map<std::string, std::string> crash_fields(const std::string &path)
{
	std::map<std::string, std::string> fields;
	auto text = read_small_file(path);
	if (!text)
		return fields;
	std::istringstream in(*text);
	std::string line;
	while (std::getline(in, line))
		if (auto colon = line.find(": "); colon != std::string::npos)
			fields[line.substr(0, colon)] = line.substr(colon + 2);
	return fields;
}

} // namespace

int list_crashes(std::ostream &out, const std::string &dir)
{
	auto crashes = CrashDir::open(dir);
	if (!crashes) {
		out.flush();
		std::fprintf(stderr, "ljcore: %s\n", crashes.error().message.c_str());
		return exit_unreadable;
	}
	// "TIME PROCESS[PID] SIGNAL LUA-FRAME DIRECTORY": a crash kept without
	// a report (--keep-core=always) shows its directory's name alone.
	for (const std::string &name : crash_names(crashes->fd())) {
		auto f = crash_fields(dir + "/" + name + "/" + crash_file);
		if (f.empty()) {
			out << name << "\n";
			continue;
		}
		std::string pid = f["pid"];
		if (!f["namespace pid"].empty() && f["namespace pid"] != pid)
			pid += "/" + f["namespace pid"];
		out << f["time"] << "  " << printable(f["comm"]) << "[" << pid << "]  "
		    << f["signal"] << "  " << (f["lua"].empty() ? "-" : printable(f["lua"])) << "  "
		    << name << "\n";
	}
	// Every crash the handler saw, per executable: a crash loop shows
	// as one line, however many of its crashes were not reported.
	for (const RateCount &r : rate_counts(crashes->fd()))
		out << printable(r.exe) << ": " << r.crashes << " crashes, " << r.suppressed
		    << " over the rate limit\n";
	return exit_ok;
}

} // namespace ljcore::catching
