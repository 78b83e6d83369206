// Strings read from the target are bytes, not text: chunk names, function
// names, process arguments, heap strings and the paths through them. This
// is how every renderer shows them.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ljcore {

// For a terminal: bytes that are not UTF-8, control characters (C0, DEL,
// C1) as \xNN, tab, newline and carriage return as \t, \n and \r; the rest
// as it is. For reading, not for parsing: JSON has the exact bytes.
std::string printable(std::string_view bytes);

// Makes doc valid JSON that still holds every byte of its strings: a string
// that is not UTF-8 keeps its UTF-8 sequences, each other byte becomes the
// text \xNN, and a sibling member "<name>_hex" holds all its bytes in
// lowercase hex. A list of strings gets a "<name>_hex" list of the same
// length (null where no hex is needed); an object whose keys are not UTF-8
// gets a "<name>_hex" object from each escaped key to that key's hex.
// Leaves documents of valid UTF-8 unchanged, so it can run twice. Returns
// what doc's own "<name>_hex" sibling would hold, null when none is needed.
nlohmann::json encode_target_bytes(nlohmann::json &doc);

// The pieces of that encoding, for a writer that streams (json_writer.h).
bool is_utf8(std::string_view bytes);
// UTF-8 sequences as they are, every other byte as the text \xNN.
std::string escape_non_utf8(std::string_view bytes);
std::string hex_bytes(std::string_view bytes); // lowercase, two digits a byte

// doc, encoded as above, indented by 2, and a newline.
void print_json(std::ostream &out, nlohmann::json doc);

} // namespace ljcore
