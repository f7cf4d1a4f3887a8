#include "xlite/sched/memory_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_format.h"
#include "xlite/base/byte_text.h"
#include "xlite/base/utf8.h"

namespace xlite {
namespace {

// The longest band label, in bytes (cut at a UTF-8 character boundary).
constexpr size_t kBandLabelChars = 130;

// The plot area and the band rows below it, in pixels.
struct PlotLayout {
  double left = 90, top = 40, width = 800, height = 260;
  double bands_top = 0;  // first band row
  double row = 30;       // a band's label line and bar
};

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A step of 1, 2 or 5 times a power of ten giving about `count` ticks up to
// `max` (> 0).
double NiceStep(double max, int count) {
  const double raw = max / count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0}) {
    if (factor * magnitude >= raw) return factor * magnitude;
  }
  return 10 * magnitude;
}

double StepX(const PlotLayout& l, double step, int64_t steps) {
  return l.left + (steps > 1 ? l.width * step / static_cast<double>(steps - 1) : 0);
}

double BytesY(const PlotLayout& l, double bytes, double axis_max) {
  return l.top + l.height - (axis_max > 0 ? l.height * bytes / axis_max : 0);
}

// One point per pixel column at most, keeping each column's maximum.
std::string Polyline(const PlotLayout& l, const std::vector<int64_t>& bytes, double axis_max) {
  std::string points;
  const size_t n = bytes.size();
  const size_t columns = std::max<size_t>(1, std::min<size_t>(n, static_cast<size_t>(l.width)));
  for (size_t col = 0; col < columns; ++col) {
    const size_t from = col * n / columns, to = std::max(from + 1, (col + 1) * n / columns);
    int64_t most = 0;
    for (size_t s = from; s < to && s < n; ++s) most = std::max(most, bytes[s]);
    const double x =
        l.left + (columns == 1 ? 0 : l.width * static_cast<double>(col) / (columns - 1));
    absl::StrAppendFormat(&points, "%.1f,%.1f ", x, BytesY(l, static_cast<double>(most), axis_max));
  }
  return points;
}

// The byte axis: gridlines and labels in the peak's unit; returns the
// axis' top value (a whole number of steps at or above the peak).
double AppendByteAxis(const PlotLayout& l, int64_t peak, std::string* svg) {
  const ByteUnit unit = ByteUnitOf(static_cast<double>(peak));
  const double peak_in_unit = std::max(static_cast<double>(peak) / unit.divisor, 1.0);
  const double step = NiceStep(peak_in_unit, 5);
  const double axis_max = std::ceil(peak_in_unit / step) * step;
  for (double v = 0; v <= axis_max + step / 2; v += step) {
    const double y = BytesY(l, v, axis_max);
    absl::StrAppendFormat(svg,
                          "<line class=\"ytick\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
                          "stroke=\"#ddd\"/><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g %s"
                          "</text>\n",
                          l.left, y, l.left + l.width, y, l.left - 6, y + 4, v, unit.name);
  }
  absl::StrAppendFormat(svg,
                        "<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" "
                        "text-anchor=\"middle\">bytes live (%s)</text>\n",
                        l.top + l.height / 2, l.top + l.height / 2, unit.name);
  return axis_max * unit.divisor;
}

// The step axis: ticks and labels below the plot.
void AppendStepAxis(const PlotLayout& l, int64_t steps, std::string* svg) {
  const double last = static_cast<double>(std::max<int64_t>(steps - 1, 1));
  const double step = std::max(1.0, NiceStep(last, 8));
  for (double s = 0; s <= last + step / 2 && s <= last; s += step) {
    const double x = StepX(l, s, steps);
    absl::StrAppendFormat(svg,
                          "<line class=\"xtick\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                          "stroke=\"#888\"/><text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%g"
                          "</text>\n",
                          x, l.top + l.height, x, l.top + l.height + 5, x, l.top + l.height + 18,
                          s);
  }
  absl::StrAppendFormat(svg,
                        "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">schedule step (%d "
                        "steps)</text>\n",
                        l.left + l.width / 2, l.top + l.height + 36, steps);
}

// The largest buffers live at the peak: a label line and a bar over each
// one's live range, on the step axis.
void AppendBands(const PlotLayout& l, const MemoryReport& report, std::string* svg) {
  const size_t bands = std::min(report.top_buffers.size(), kMemorySvgBands);
  if (bands == 0) return;
  absl::StrAppendFormat(svg,
                        "<text x=\"%.0f\" y=\"%.0f\" font-weight=\"bold\">largest %d of the %d "
                        "buffers live at the peak (live range)</text>\n",
                        l.left, l.bands_top - 8, bands, report.live_buffers_at_peak);
  static constexpr const char* kColors[] = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b",
                                            "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  for (size_t i = 0; i < bands; ++i) {
    const ReportedBuffer& b = report.top_buffers[i];
    const double y = l.bands_top + l.row * static_cast<double>(i);
    const double x0 = StepX(l, static_cast<double>(b.range.start), report.steps);
    const double x1 = StepX(l, static_cast<double>(b.range.end), report.steps);
    std::string label =
        absl::StrFormat("%s %s %s (%s)", b.instruction, b.shape,
                        BytesText(b.bytes, /*with_exact=*/false), BufferKindName(b.kind));
    if (!b.op_name.empty()) label += " [" + b.op_name + "]";
    // About the plot's width at 11 px sans-serif; longer op_names are cut.
    if (label.size() > kBandLabelChars) {
      label = label.substr(0, Utf8CharacterStart(label, kBandLabelChars - 3)) + "...";
    }
    absl::StrAppendFormat(svg,
                          "<g class=\"band\"><text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">%s"
                          "</text><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"10\" "
                          "fill=\"%s\"/></g>\n",
                          l.left, y + 11, Escape(label), x0, y + 15, std::max(x1 - x0, 2.0),
                          kColors[i % std::size(kColors)]);
  }
}

}  // namespace

std::string MemoryProfileSvg(const MemoryReport& report) {
  PlotLayout l;
  l.bands_top = l.top + l.height + 75;
  const size_t bands = std::min(report.top_buffers.size(), kMemorySvgBands);
  const double total_height = l.bands_top + l.row * static_cast<double>(bands) + 10;
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
      static_cast<int>(l.left + l.width + 20), static_cast<int>(total_height));
  absl::StrAppendFormat(&svg, "<title>%s: memory over the schedule</title>\n",
                        Escape(report.module));
  absl::StrAppendFormat(&svg,
                        "<text x=\"%.0f\" y=\"20\">%s — %s scheduler, peak %s at step %d (%s)"
                        "</text>\n",
                        l.left, Escape(report.module), Escape(report.scheduler),
                        BytesText(report.peak_bytes, /*with_exact=*/false), report.peak_step,
                        Escape(report.peak_instruction));
  const double axis_max = AppendByteAxis(l, report.peak_bytes, &svg);
  AppendStepAxis(l, report.steps, &svg);
  absl::StrAppendFormat(&svg,
                        "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" "
                        "stroke=\"#888\"/>\n",
                        l.left, l.top, l.width, l.height);
  absl::StrAppendFormat(
      &svg, "<polyline class=\"total\" fill=\"none\" stroke=\"#1f77b4\" points=\"%s\"/>\n",
      Polyline(l, report.bytes_at_step, axis_max));
  absl::StrAppendFormat(
      &svg, "<polyline class=\"temporaries\" fill=\"none\" stroke=\"#ff7f0e\" points=\"%s\"/>\n",
      Polyline(l, report.temp_bytes_at_step, axis_max));
  const double peak_x = StepX(l, static_cast<double>(report.peak_step), report.steps);
  absl::StrAppendFormat(&svg,
                        "<line class=\"peak\" x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" "
                        "stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n",
                        peak_x, l.top, peak_x, l.top + l.height);
  absl::StrAppendFormat(&svg,
                        "<text x=\"%.0f\" y=\"%.0f\" fill=\"#1f77b4\">all buffers</text>"
                        "<text x=\"%.0f\" y=\"%.0f\" fill=\"#ff7f0e\">temporaries</text>"
                        "<text x=\"%.0f\" y=\"%.0f\" fill=\"#d62728\">peak</text>\n",
                        l.left + l.width - 230, l.top - 6, l.left + l.width - 140, l.top - 6,
                        l.left + l.width - 50, l.top - 6);
  AppendBands(l, report, &svg);
  svg += "</svg>\n";
  return svg;
}

}  // namespace xlite
