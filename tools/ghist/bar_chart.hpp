// The terminal bar chart (--bars, --format bars): one line per bin, "lower upper value bar".
#pragma once

#include <string>

#include "histogram_report.hpp"

namespace ghist::cli {

/// Lines fit in `width` columns (at least 40 are used); bars are scaled to the largest value of each channel and
/// drawn with Unicode eighth blocks when `unicode`, else '#'. One block per channel, headed by its name when there
/// are several. Empty min/max bins and negative values get no bar.
template <class Sample>
std::string format_bars(const histogram_report<Sample>& report, int width, bool unicode);

/// The terminal width from $COLUMNS (80 when unset or not a number) and whether the locale is UTF-8
/// (LC_ALL, LC_CTYPE, LANG).
int terminal_columns();
bool locale_is_utf8();

}  // namespace ghist::cli
