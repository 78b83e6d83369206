#include "cli/catch/crash_dir.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <random>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/catch/files.h"

namespace ljcore::catching {

namespace {

constexpr const char *rate_file = ".catch.rate";
constexpr const char *lock_file = ".lock";
constexpr time_t rate_window = 60;

// Holds the directory's lock while alive: handlers of crashes that come
// together take turns at the counts and the quota.
class Lock {
public:
	explicit Lock(int dirfd)
	    : fd_(openat(dirfd, lock_file, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600))
	{
		if (fd_ >= 0)
			flock(fd_, LOCK_EX);
	}
	~Lock()
	{
		if (fd_ >= 0)
			close(fd_); // releases the lock
	}
	Lock(const Lock &) = delete;
	Lock &operator=(const Lock &) = delete;

private:
	int fd_;
};

// One line of .catch.rate: exe, start of its window, reports in the
// window, crashes, suppressed (tab-separated; exe never holds a tab: such
// names are counted under "?").
struct RateLine {
	std::string exe;
	time_t window = 0;
	uint64_t in_window = 0, crashes = 0, suppressed = 0;
};

std::vector<RateLine> read_rates(int dirfd)
{
	std::vector<RateLine> lines;
	int fd = openat(dirfd, rate_file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return lines;
	std::string text;
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0 && text.size() < (1 << 20))
		text.append(buf, size_t(n));
	close(fd);
	std::istringstream in(text);
	std::string line;
	while (std::getline(in, line)) {
		std::istringstream fields(line);
		RateLine r;
		if (std::getline(fields, r.exe, '\t') &&
		    fields >> r.window >> r.in_window >> r.crashes >> r.suppressed)
			lines.push_back(r);
	}
	return lines;
}

void write_rates(int dirfd, const std::vector<RateLine> &lines)
{
	std::ostringstream out;
	for (auto &r : lines)
		out << r.exe << '\t' << r.window << ' ' << r.in_window << ' ' << r.crashes << ' '
		    << r.suppressed << '\n';
	// A new file renamed over the old: a reader never sees half of it.
	const std::string temp = std::string(rate_file) + ".new";
	unlinkat(dirfd, temp.c_str(), 0);
	if (write_new_file(dirfd, temp, out.str()))
		renameat(dirfd, temp.c_str(), dirfd, rate_file);
}

} // namespace

Expected<CrashDir> CrashDir::open(const std::string &dir)
{
	int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(dir + ": " + strerror(errno));
	return CrashDir(fd, dir);
}

CrashDir::CrashDir(CrashDir &&other) noexcept : fd_(other.fd_), path_(std::move(other.path_))
{
	other.fd_ = -1;
}

CrashDir::~CrashDir()
{
	if (fd_ >= 0)
		close(fd_);
}

bool CrashDir::admit(const std::string &exe, unsigned rate, time_t now)
{
	const std::string key = exe.find_first_of("\t\n") == std::string::npos ? exe : "?";
	Lock lock(fd_);
	auto lines = read_rates(fd_);
	auto it = std::find_if(lines.begin(), lines.end(),
			       [&](const RateLine &r) { return r.exe == key; });
	if (it == lines.end()) {
		lines.push_back({key, now, 0, 0, 0});
		it = lines.end() - 1;
	}
	// The handlers of a burst take the lock in any order, their crash
	// times seconds apart: one earlier than the window counts in it. Only
	// a clock set back by a window or more starts a new one early.
	if (now >= it->window + rate_window || now + rate_window <= it->window) {
		it->window = now;
		it->in_window = 0;
	}
	it->crashes++;
	bool admitted = it->in_window < rate;
	if (admitted)
		it->in_window++;
	else
		it->suppressed++;
	write_rates(fd_, lines);
	return admitted;
}

Expected<std::string> CrashDir::make_temp(uid_t uid, gid_t gid)
{
	std::random_device random;
	for (int attempt = 0; attempt < 16; attempt++) {
		std::string name =
			".tmp-" + std::to_string(getpid()) + "-" + std::to_string(random());
		if (mkdirat(fd_, name.c_str(), 0700) != 0) {
			if (errno == EEXIST)
				continue;
			return fail(path_ + "/" + name + ": " + strerror(errno));
		}
		if (fchownat(fd_, name.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0) {
			std::string why = strerror(errno);
			unlinkat(fd_, name.c_str(), AT_REMOVEDIR);
			return fail(path_ + "/" + name + ": chown: " + why);
		}
		return name;
	}
	return fail(path_ + ": no free temporary name");
}

Expected<std::string> CrashDir::publish(const std::string &temp, const std::string &name)
{
	int dir = openat(fd_, temp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return fail(temp + ": " + strerror(errno));
	if (DIR *d = fdopendir(dir)) {
		// What the unprivileged writer made becomes root's, as the
		// directory does: readers of crashes need root, as of cores.
		while (dirent *e = readdir(d))
			if (e->d_name[0] != '.')
				fchownat(dir, e->d_name, 0, 0, AT_SYMLINK_NOFOLLOW);
		closedir(d);
	} else {
		close(dir);
	}
	fchownat(fd_, temp.c_str(), 0, 0, AT_SYMLINK_NOFOLLOW);
	for (int n = 1; n < 100; n++) {
		std::string final_name = n == 1 ? name : name + "-" + std::to_string(n);
		// RENAME_NOREPLACE: a crash of the same second keeps its own.
		if (renameat2(fd_, temp.c_str(), fd_, final_name.c_str(), RENAME_NOREPLACE) == 0)
			return final_name;
		if (errno != EEXIST)
			return fail(path_ + "/" + final_name + ": " + strerror(errno));
	}
	return fail(path_ + "/" + name + ": every name taken");
}

void CrashDir::enforce_quota(uint64_t quota, const std::string &keep)
{
	Lock lock(fd_);
	auto names = crash_names(fd_);
	std::vector<std::pair<std::string, uint64_t>> sizes;
	uint64_t total = 0;
	for (auto &n : names) {
		uint64_t bytes = crash_dir_bytes(fd_, n);
		sizes.emplace_back(n, bytes);
		total += bytes;
	}
	// Oldest last in names: remove from the back.
	for (auto it = sizes.rbegin(); it != sizes.rend() && total > quota; ++it) {
		if (it->first == keep)
			continue;
		remove_crash_dir(fd_, it->first);
		total -= it->second;
	}
}

std::vector<std::string> crash_names(int dirfd)
{
	std::vector<std::string> names;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return names;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return names;
	}
	while (dirent *e = readdir(d))
		if (e->d_name[0] != '.' && e->d_type == DT_DIR)
			names.emplace_back(e->d_name);
	closedir(d);
	std::sort(names.rbegin(), names.rend());
	return names;
}

std::vector<RateCount> rate_counts(int dirfd)
{
	std::vector<RateCount> counts;
	for (auto &r : read_rates(dirfd))
		counts.push_back({r.exe, r.crashes, r.suppressed});
	return counts;
}

std::string utc_stamp(time_t t)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	char buf[32];
	strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
	return buf;
}

std::string file_name_safe(const std::string &s)
{
	std::string out;
	for (char c : s)
		out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
				       c == '+' || c == '-'
			       ? c
			       : '_';
	if (out.empty() || out[0] == '.')
		out.insert(out.begin(), '_');
	return out;
}

} // namespace ljcore::catching
