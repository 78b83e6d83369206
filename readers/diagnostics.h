// What a reading learnt besides its result: what could not be read and
// why, how its conclusions were reached, and remarks for a summary. One
// type for every layer, so that a function that reads says all of it
// through one parameter, and a caller passes it on or merges it whole.
#pragma once

#include <string>
#include <vector>

namespace ljcore {

class Diagnostics {
public:
	enum class Kind {
		problem,  // something could not be read; the result is partial
		evidence, // how a conclusion was reached (--explain)
		note,     // a remark the summary should carry
	};
	struct Entry {
		Kind kind;
		std::string text;
	};

	void problem(std::string text) { add(Kind::problem, std::move(text)); }
	void evidence(std::string text) { add(Kind::evidence, std::move(text)); }
	void note(std::string text) { add(Kind::note, std::move(text)); }
	void add(Kind kind, std::string text) { entries_.push_back({kind, std::move(text)}); }

	// Everything other said, after what this one said.
	void merge(const Diagnostics &other)
	{
		entries_.insert(entries_.end(), other.entries_.begin(), other.entries_.end());
	}

	// The texts of one kind, in the order they were said.
	std::vector<std::string> of(Kind kind) const
	{
		std::vector<std::string> out;
		for (const Entry &e : entries_)
			if (e.kind == kind)
				out.push_back(e.text);
		return out;
	}
	std::vector<std::string> problems() const { return of(Kind::problem); }
	std::vector<std::string> evidence() const { return of(Kind::evidence); }
	std::vector<std::string> notes() const { return of(Kind::note); }

	bool has(Kind kind) const
	{
		for (const Entry &e : entries_)
			if (e.kind == kind)
				return true;
		return false;
	}
	bool has_problems() const { return has(Kind::problem); }

	// Everything said, in the order it was said, whatever its kind.
	const std::vector<Entry> &entries() const { return entries_; }

private:
	std::vector<Entry> entries_;
};

} // namespace ljcore
