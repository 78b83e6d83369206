// ljcore profile --format svg: a flame graph in one self-contained SVG file,
// drawn the way flamegraph.pl draws them: the root at the bottom, callees
// above their callers, siblings in alphabetical order, width by samples. Its
// script zooms into a clicked frame, searches labels by regular expression
// (Ctrl-F or the Search button) and shows a hovered frame's counts.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "cli/render_bytes.h"
#include "cli/render_profile.h"

namespace ljcore {

namespace {

constexpr int image_width = 1200;
constexpr int pad = 10;
constexpr int frame_height = 16;
constexpr int header = 48;         // title and the buttons
constexpr int footer = 34;         // the details line and the note
constexpr double char_width = 6.6; // 11px monospace
// Frames narrower than 1/min_width_inverse of all samples are not drawn;
// their samples stay in their parent's width (flamegraph.pl's --minwidth).
constexpr uint64_t min_width_inverse = 1000;

// One frame of the merged call tree: stacks with equal label paths share it.
struct Node {
	std::string label;
	ProfileFrameKind kind = ProfileFrameKind::lua;
	uint64_t value = 0;
	double before = 0;                      // a differential graph: the value before, scaled
	std::map<std::string, size_t> children; // by label: alphabetical order
};

class CallTree {
public:
	CallTree() : nodes(1) { nodes[0] = {"all", ProfileFrameKind::state, 0, 0, {}}; }

	// Adds a stack of frames from the root, labelled by label(i) and of
	// kind kind(i).
	template <class Label, class Kind>
	void add(size_t depth, const Label &label, const Kind &kind, uint64_t value, double before)
	{
		size_t at = 0;
		nodes[0].value += value;
		nodes[0].before += before;
		for (size_t i = 0; i < depth; i++) {
			std::string l = label(i);
			auto it = nodes[at].children.find(l);
			if (it == nodes[at].children.end()) {
				it = nodes[at].children.emplace(l, nodes.size()).first;
				nodes.push_back({std::move(l), kind(i), 0, 0, {}});
			}
			at = it->second;
			nodes[at].value += value;
			nodes[at].before += before;
		}
	}

	std::vector<Node> nodes;
};

// Text for XML character data and attribute values. printable() leaves
// only valid UTF-8 without control characters; XML also refuses the
// noncharacters U+FFFE and U+FFFF, which are valid UTF-8.
std::string xml_text(std::string_view bytes)
{
	std::string text = printable(bytes), out;
	out.reserve(text.size());
	for (size_t i = 0; i < text.size(); i++) {
		char c = text[i];
		if (c == '\xef' && i + 2 < text.size() && text[i + 1] == '\xbf' &&
		    (text[i + 2] == '\xbe' || text[i + 2] == '\xbf')) {
			out += text[i + 2] == '\xbe' ? "\\uFFFE" : "\\uFFFF";
			i += 2;
		} else if (c == '&')
			out += "&amp;";
		else if (c == '<')
			out += "&lt;";
		else if (c == '>')
			out += "&gt;";
		else if (c == '"')
			out += "&quot;";
		else
			out += c;
	}
	return out;
}

// The start of label that fits width pixels, cut between UTF-8 sequences,
// with ".." where it was cut; empty where not even three characters fit.
std::string fitted(const std::string &label, double width)
{
	size_t room = width > 6 ? size_t((width - 6) / char_width) : 0;
	if (room < 3)
		return "";
	size_t chars = 0, end = 0;
	for (size_t i = 0; i < label.size(); i++) {
		if ((label[i] & 0xc0) == 0x80)
			continue;
		if (chars == room - 2)
			end = i;
		if (++chars > room)
			return label.substr(0, end) + "..";
	}
	return label;
}

uint32_t hash(std::string_view s)
{
	uint32_t h = 2166136261u;
	for (unsigned char c : s)
		h = (h ^ c) * 16777619u;
	return h;
}

std::string rgb(int r, int g, int b)
{
	return "rgb(" + std::to_string(r) + "," + std::to_string(g) + "," + std::to_string(b) + ")";
}

// flamegraph.pl's palettes, picked by what the frame is: warm for Lua,
// yellow for C functions, aqua for native frames, violet for requests, gray for VM
// states. Stable per label.
std::string color(const Node &n)
{
	uint32_t h = hash(n.label);
	double a = double(h & 0xff) / 255, b = double((h >> 8) & 0xff) / 255,
	       c = double((h >> 16) & 0xff) / 255;
	int r, g, bl;
	switch (n.kind) {
	case ProfileFrameKind::lua:
		r = 205 + int(50 * a), g = int(230 * b), bl = int(55 * c);
		break;
	case ProfileFrameKind::c:
		r = 175 + int(55 * a), g = r, bl = 50 + int(20 * b);
		break;
	case ProfileFrameKind::native:
		r = 50 + int(60 * a), g = 165 + int(55 * b), bl = g;
		break;
	case ProfileFrameKind::request:
		r = 170 + int(40 * a), g = 130 + int(40 * b), bl = 220 + int(35 * c);
		break;
	default:
		r = g = bl = 160 + int(40 * a);
	}
	return rgb(r, g, bl);
}

// A differential graph's color, as flamegraph.pl --diff draws it: red where
// the frame grew, blue where it shrank, the deeper the more, white where
// it stayed; max_change is the largest change of any frame.
std::string diff_color(const Node &n, double max_change)
{
	double change = double(n.value) - n.before;
	int fade = 255 - int(std::min(1.0, std::abs(change) / (max_change ? max_change : 1)) * 200);
	if (change > 0)
		return rgb(255, fade, fade);
	return rgb(fade, fade, 255);
}

std::string percent(uint64_t n, uint64_t total)
{
	char s[32];
	snprintf(s, sizeof s, "%.2f%%", total ? 100.0 * double(n) / double(total) : 100.0);
	return s;
}

// Pixels with two decimals: enough for a 1200px image, short in the file.
std::string px(double v)
{
	char s[32];
	snprintf(s, sizeof s, "%.2f", v);
	return s;
}

// The script: frames carry their first sample (data-x), samples (data-n)
// and depth (data-d), so that zooming redraws them from numbers rather
// than from rounded pixels.
constexpr const char *script = R"JS(
var frames, details, matched, unzoom, searchButton, total, zoomed = null, query = null;
var left = PAD, width = WIDTH - 2 * PAD, charWidth = CHARW;
function num(g, k) { return +g.getAttribute("data-" + k); }
function label(g) { var t = g.querySelector("title").textContent; return t.replace(/ \([^()]*\)$/, ""); }
function fit(g, x, w) {
	var t = g.querySelector("text"), l = label(g), room = Math.floor((w - 6) / charWidth);
	t.setAttribute("x", x + 3);
	t.textContent = room < 3 ? "" : l.length <= room ? l : l.substring(0, room - 2) + "..";
}
function draw(x0, n0, d0) {
	for (var i = 0; i < frames.length; i++) {
		var g = frames[i], x = num(g, "x"), n = num(g, "n"), d = num(g, "d"), r = g.querySelector("rect");
		var inside = d >= d0 && x >= x0 && x + n <= x0 + n0;
		var under = d < d0 && x <= x0 && x + n >= x0 + n0;
		g.style.display = inside || under ? "" : "none";
		g.style.opacity = under && d0 > 0 ? 0.5 : "";
		if (!inside && !under) continue;
		var px = under ? left : left + (x - x0) / (n0 || 1) * width;
		var pw = under ? width : n / (n0 || 1) * width;
		r.setAttribute("x", px);
		r.setAttribute("width", pw);
		fit(g, px, pw);
	}
}
function zoom(g) {
	zoomed = g;
	draw(num(g, "x"), num(g, "n"), num(g, "d"));
	unzoom.style.opacity = g === frames[0] ? 0 : 1;
	if (query) search(query);
}
function search(q) {
	var re, spans = [];
	try { re = new RegExp(q); } catch (e) { alert(e); return; }
	query = q;
	for (var i = 0; i < frames.length; i++) {
		var g = frames[i], r = g.querySelector("rect");
		if (!r.hasAttribute("data-fill")) r.setAttribute("data-fill", r.getAttribute("fill"));
		var hit = re.test(label(g));
		r.setAttribute("fill", hit ? "rgb(230,0,230)" : r.getAttribute("data-fill"));
		if (hit && g.style.display !== "none") spans.push([num(g, "x"), num(g, "x") + num(g, "n")]);
	}
	// A match inside another match counts once.
	spans.sort(function (a, b) { return a[0] - b[0]; });
	var covered = 0, end = -1;
	for (var j = 0; j < spans.length; j++) {
		var s = Math.max(spans[j][0], end);
		if (spans[j][1] > s) { covered += spans[j][1] - s; end = spans[j][1]; }
	}
	var base = zoomed ? num(zoomed, "n") : total;
	matched.textContent = "Matched: " + (base ? (100 * covered / base).toFixed(2) : "0") + "%";
	searchButton.textContent = "Reset search";
}
function resetSearch() {
	query = null;
	for (var i = 0; i < frames.length; i++) {
		var r = frames[i].querySelector("rect");
		if (r.hasAttribute("data-fill")) r.setAttribute("fill", r.getAttribute("data-fill"));
	}
	matched.textContent = "";
	searchButton.textContent = "Search";
}
function askSearch() {
	if (query !== null) { resetSearch(); return; }
	var q = prompt("Search frames (regular expression):", "");
	if (q) search(q);
}
function init() {
	frames = document.querySelectorAll("#frames > g");
	details = document.getElementById("details");
	matched = document.getElementById("matched");
	unzoom = document.getElementById("unzoom");
	searchButton = document.getElementById("search");
	total = num(frames[0], "n");
	for (var i = 0; i < frames.length; i++) {
		var g = frames[i];
		g.addEventListener("click", function (e) { zoom(e.currentTarget); });
		g.addEventListener("mouseover", function (e) {
			details.textContent = e.currentTarget.querySelector("title").textContent;
		});
		g.addEventListener("mouseout", function () { details.textContent = " "; });
	}
	unzoom.addEventListener("click", function () { zoom(frames[0]); });
	searchButton.addEventListener("click", askSearch);
	document.addEventListener("keydown", function (e) {
		if ((e.ctrlKey || e.metaKey) && e.key === "f" || e.key === "F3") {
			e.preventDefault();
			askSearch();
		} else if (e.key === "Escape") {
			resetSearch();
			zoom(frames[0]);
		}
	});
}
)JS";

std::string replaced(std::string s, const std::string &from, const std::string &to)
{
	for (size_t at; (at = s.find(from)) != std::string::npos;)
		s.replace(at, from.size(), to);
	return s;
}

// Draws the call tree; diff: colored by change, with the change in the
// tooltips.
void draw(std::ostream &out, const std::vector<Node> &nodes, const std::string &title,
	  const std::string &unit_name, bool diff)
{
	const uint64_t total = nodes[0].value;
	const double width = image_width - 2 * pad;
	const std::string unit = xml_text(unit_name);
	double max_change = 0;
	for (const Node &n : nodes)
		max_change = std::max(max_change, std::abs(double(n.value) - n.before));

	// Preorder, iterative: stacks may be thousands of frames deep.
	struct Drawn {
		size_t node;
		uint64_t x;
		int depth;
	};
	std::vector<Drawn> drawn, todo{{0, 0, 0}};
	size_t hidden = 0;
	int depth = 0;
	while (!todo.empty()) {
		Drawn d = todo.back();
		todo.pop_back();
		const Node &n = nodes[d.node];
		if (d.node != 0 && n.value * min_width_inverse < total) {
			hidden++;
			continue;
		}
		drawn.push_back(d);
		depth = std::max(depth, d.depth);
		uint64_t x = d.x + n.value;
		for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
			x -= nodes[it->second].value;
			todo.push_back({it->second, x, d.depth + 1});
		}
	}

	const int height = header + (depth + 1) * frame_height + footer;
	const int bottom = header + depth * frame_height; // the root's y

	out << "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	    << "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << image_width
	    << "\" height=\"" << height << "\" viewBox=\"0 0 " << image_width << " " << height
	    << "\" onload=\"init()\">\n"
	    << "<style>text { font-family: monospace; font-size: 11px; fill: black; }\n"
	    << "#frames g:hover rect { stroke: black; stroke-width: 0.5; } #frames g { cursor: "
	       "pointer; }\n"
	    << ".button { cursor: pointer; } #title { font-size: 16px; }</style>\n"
	    << "<script type=\"text/ecmascript\"><![CDATA["
	    << replaced(replaced(replaced(script, "WIDTH", std::to_string(image_width)), "PAD",
				 std::to_string(pad)),
			"CHARW", px(char_width))
	    << "]]></script>\n"
	    << "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"rgb(250,250,240)\"/>\n"
	    << "<text id=\"title\" x=\"" << image_width / 2 << "\" y=\"22\" text-anchor=\"middle\">"
	    << xml_text(title) << "</text>\n"
	    << "<text id=\"unzoom\" class=\"button\" x=\"" << pad
	    << "\" y=\"40\" style=\"opacity:0\">Reset zoom</text>\n"
	    << "<text id=\"search\" class=\"button\" x=\"" << image_width - pad
	    << "\" y=\"40\" text-anchor=\"end\">Search</text>\n"
	    << "<text id=\"details\" x=\"" << pad << "\" y=\"" << height - 20 << "\"> </text>\n"
	    << "<text id=\"matched\" x=\"" << image_width - pad << "\" y=\"" << height - 20
	    << "\" text-anchor=\"end\"></text>\n"
	    << "<text x=\"" << pad << "\" y=\"" << height - 6 << "\" style=\"fill:gray\">" << hidden
	    << " frames narrower than " << 100.0 / min_width_inverse
	    << "% of all samples are not drawn: their samples count in their callers.</text>\n"
	    << "<g id=\"frames\">\n";
	for (const Drawn &d : drawn) {
		const Node &n = nodes[d.node];
		double x = pad + (total ? double(d.x) / double(total) * width : 0);
		double w = total ? double(n.value) / double(total) * width : width;
		int y = bottom - d.depth * frame_height;
		// Labels are printable() already; xml_text escapes them for XML.
		std::string label = xml_text(n.label);
		std::string change;
		if (diff) {
			char s[48];
			snprintf(s, sizeof s, ", %+.2f%%",
				 total ? 100.0 * (double(n.value) - n.before) / double(total)
				       : 0.0);
			change = s;
		}
		out << "<g data-x=\"" << d.x << "\" data-n=\"" << n.value << "\" data-d=\""
		    << d.depth << "\"><title>" << label << " (" << n.value << " " << unit << ", "
		    << percent(n.value, total) << change << ")</title><rect x=\"" << px(x)
		    << "\" y=\"" << y << "\" width=\"" << px(w) << "\" height=\""
		    << frame_height - 1 << "\" fill=\""
		    << (diff ? diff_color(n, max_change) : color(n)) << "\" rx=\"2\"/><text x=\""
		    << px(x + 3) << "\" y=\"" << y + 11 << "\">" << xml_text(fitted(n.label, w))
		    << "</text></g>\n";
	}
	out << "</g>\n</svg>\n";
}

} // namespace

void render_profile_svg(std::ostream &out, const Profile &p)
{
	CallTree tree;
	for (const ProfileStack &s : p.stacks)
		tree.add(
			s.frames.size(), [&](size_t i) { return profile_frame_label(s.frames[i]); },
			[&](size_t i) { return s.frames[i].kind; }, s.value, 0);
	std::string title = "Flame graph of process " + std::to_string(p.pid) + " (" + p.backend +
			    (p.rate_hz ? ", " + std::to_string(p.rate_hz) + " Hz" : "") + ", " +
			    std::to_string(tree.nodes[0].value) + " " + p.unit + ")";
	draw(out, tree.nodes, title, p.unit, false);
}

void render_profile_svg_diff(std::ostream &out, const ProfileDiff &d)
{
	CallTree tree;
	for (const DiffStack &s : d.stacks)
		tree.add(
			s.frames.size(), [&](size_t i) { return s.frames[i]; },
			[](size_t) { return ProfileFrameKind::lua; }, s.after, s.before);
	std::string title = "Differential flame graph: " + d.after_name + " against " +
			    d.before_name + " (red grew, blue shrank; widths as after, " +
			    std::to_string(d.after_total) + " samples)";
	draw(out, tree.nodes, title, "samples", true);
}

} // namespace ljcore
