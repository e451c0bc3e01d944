/* SPDX-License-Identifier: MIT */
/* text.h: the two text helpers the program shares with the library, the
 * JSON string literal (vs_json_escape: every JSON vsim writes, the
 * library's and the program's, escapes alike) and the bounded edit distance
 * behind "did you mean" (vs_edit_distance).  They are the library's private
 * functions, not part of its API: not in the installed headers, not
 * exported by libvsim.so.  The program links the static library, which has
 * them, and takes their one declaration from the library's private header
 * rather than a copy; the only other part of lib/ used this way is the
 * safe output files (cmd/outfile.h); cmd/ otherwise sees only
 * lib/include/vsim/. */
#ifndef VSIM_CMD_TEXT_H
#define VSIM_CMD_TEXT_H

#include "../lib/util/text.h"

#endif
