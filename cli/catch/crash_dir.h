// The directory ljcore catch writes: one directory per crash, named
// "<UTC time>-<comm>-<pid>" so that names sort by time, made under a
// temporary name (".tmp-...") and renamed when complete; the rate limit's
// counts (.catch.rate) beside them, all changed under one lock (.lock).
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "readers/error.h"

namespace ljcore::catching {

class CrashDir {
public:
	// Opens dir (which must be a directory, not a symlink to one).
	static Expected<CrashDir> open(const std::string &dir);
	CrashDir(CrashDir &&other) noexcept;
	CrashDir &operator=(CrashDir &&) = delete;
	~CrashDir();

	int fd() const { return fd_; }
	const std::string &path() const { return path_; }

	// Counts a crash of exe at now; whether it may be reported: at most
	// rate reports a minute per executable.
	bool admit(const std::string &exe, unsigned rate, time_t now);

	// A new, empty temporary directory for one crash, owned by uid:gid
	// (whoever writes the report) and 0700.
	Expected<std::string> make_temp(uid_t uid, gid_t gid);
	// Gives the temporary directory's files to root and renames it to
	// name (name-2, name-3... if taken); returns the name it got.
	Expected<std::string> publish(const std::string &temp, const std::string &name);
	// Removes the oldest crashes until the directory holds at most quota
	// bytes (keep: the one just written stays, whatever its size).
	void enforce_quota(uint64_t quota, const std::string &keep);

private:
	explicit CrashDir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
	int fd_ = -1;
	std::string path_;
};

// Crash directory names, newest first.
std::vector<std::string> crash_names(int dirfd);

// The rate limit's counts per executable, for catch --list's summary.
struct RateCount {
	std::string exe;
	uint64_t crashes = 0;    // every crash seen
	uint64_t suppressed = 0; // not reported: over the rate limit
};
std::vector<RateCount> rate_counts(int dirfd);

// "20261125T205512Z": the time a crash directory's name starts with.
std::string utc_stamp(time_t t);
// comm as a file name may hold it: [A-Za-z0-9._+-], others as '_'.
std::string file_name_safe(const std::string &s);

} // namespace ljcore::catching
