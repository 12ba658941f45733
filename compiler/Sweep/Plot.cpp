//===- Plot.cpp - busbw against size, as SVG ------------------------------===//
#include "compiler/Sweep/Plot.h"

#include "compiler/Simulate/BusBandwidth.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace collc {
namespace sweep {

namespace {

constexpr double kWidth = 960, kHeight = 600;
constexpr double kLeft = 90, kRight = 30, kTop = 78, kBottom = 70;

std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
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

struct Series {
  std::string label;
  std::string color;
  std::string dash; ///< stroke-dasharray, empty for solid
  double width = 2;
  bool markers = true;
  std::vector<std::pair<double, double>> points; ///< bytes, busbw GB/s
};

std::string num(double v) { return llvm::formatv("{0:F1}", v).str(); }

} // namespace

std::string axisBytes(double bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  if (bytes == std::floor(bytes))
    return llvm::formatv("{0} {1}", static_cast<int64_t>(bytes), units[unit]);
  return llvm::formatv("{0:F1} {1}", bytes, units[unit]);
}

static std::string axisGBps(double value) {
  if (value >= 1)
    return llvm::formatv("{0}", static_cast<int64_t>(std::round(value)));
  int decimals = static_cast<int>(std::ceil(-std::log10(value) - 1e-9));
  return llvm::formatv("{0}", llvm::format("%.*f", decimals, value)).str();
}

std::string sweepToSvg(const SweepResult &result) {
  const ProgramSpec &spec = result.spec;
  const int n = static_cast<int>(spec.groupSize());

  // The series: collc's choice, each baseline, the bound.
  static const char *colors[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd"};
  static const char *dashes[] = {"", "8,4", "2,3", "10,3,2,3"};
  std::vector<Series> series;
  Series ours{"collc's choice", "#000000", "", 2.5, true, {}};
  Series bound{
      "lower bound (no schedule is faster)", "#888888", "4,4", 1.5, false, {}};
  std::vector<Series> baselines;
  for (size_t b = 0; b < result.baselines.size(); ++b)
    baselines.push_back(
        {result.baselines[b].label + " [" + result.baselines[b].algorithm + "]",
         colors[b % 4],
         dashes[(b + 1) % 4],
         2,
         true,
         {}});
  // Where collc's algorithm changes: labels along its curve.
  std::vector<std::pair<size_t, std::string>> switches;
  for (const SweepRow &row : result.rows) {
    double x = static_cast<double>(row.bytes);
    if (row.busbwGBps > 0) {
      if (switches.empty() || !llvm::StringRef(switches.back().second)
                                   .starts_with(row.algorithm + " x"))
        switches.emplace_back(ours.points.size(),
                              row.algorithm + " x" +
                                  std::to_string(row.chunks));
      ours.points.emplace_back(x, row.busbwGBps);
    }
    if (row.boundUs > 0) {
      sim::Bandwidths bw =
          sim::ncclTestsBandwidths(spec.collective, n, x, row.boundUs * 1e-6);
      bound.points.emplace_back(x, bw.bus / 1e9);
    }
    for (size_t b = 0; b < row.baselines.size() && b < baselines.size(); ++b)
      if (row.baselines[b].busbwGBps > 0)
        baselines[b].points.emplace_back(x, row.baselines[b].busbwGBps);
  }
  // Drawn in this order: the baselines' dashes stay visible where they
  // coincide with collc's solid line.
  series.push_back(bound);
  series.push_back(ours);
  for (Series &s : baselines)
    series.push_back(std::move(s));

  // Axis ranges: x in powers of two, y in decades.
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  bool any = false;
  for (const Series &s : series)
    for (auto [x, y] : s.points) {
      if (!any) {
        xmin = xmax = x;
        ymin = ymax = y;
        any = true;
      }
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  if (!any) {
    xmin = 1;
    xmax = 2;
    ymin = 0.1;
    ymax = 1;
  }
  double lx0 = std::floor(std::log2(xmin)), lx1 = std::ceil(std::log2(xmax));
  if (lx1 <= lx0) {
    lx0 -= 1;
    lx1 += 1;
  }
  double ly0 = std::floor(std::log10(ymin)), ly1 = std::ceil(std::log10(ymax));
  if (ly1 <= ly0)
    ly1 = ly0 + 1;
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto px = [&](double x) {
    return kLeft + (std::log2(x) - lx0) / (lx1 - lx0) * pw;
  };
  auto py = [&](double y) {
    return kTop + ph - (std::log10(y) - ly0) / (ly1 - ly0) * ph;
  };

  std::string svg;
  svg += llvm::formatv("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                       "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                       "font-family=\"DejaVu Sans, Helvetica, Arial, "
                       "sans-serif\">\n",
                       static_cast<int>(kWidth), static_cast<int>(kHeight));
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  std::string title =
      llvm::formatv("{0} on {1}: busbw against size",
                    sched::collectiveName(spec.collective), result.topology);
  svg +=
      llvm::formatv("<text x=\"{0}\" y=\"30\" font-size=\"20\" "
                    "font-weight=\"bold\" text-anchor=\"middle\">{1}</text>\n",
                    num(kLeft + pw / 2), escape(title));
  svg +=
      llvm::formatv("<text x=\"{0}\" y=\"54\" font-size=\"13\" "
                    "text-anchor=\"middle\" fill=\"#444444\">{1}; "
                    "simulated by collc; busbw as nccl-tests</text>\n",
                    num(kLeft + pw / 2),
                    escape(describeSpec(spec) + " (" + result.machine + ")"));

  // Grid and ticks.
  svg += "<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n";
  for (double d = ly0; d < ly1; d += 1)
    for (int m : {2, 5}) {
      double y = py(std::pow(10, d) * m);
      svg += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                           "stroke-dasharray=\"2,3\"/>\n",
                           num(kLeft), num(y), num(kLeft + pw));
    }
  svg += "</g>\n";
  int span = static_cast<int>(lx1 - lx0);
  int step = 1;
  for (int s : {1, 2, 5, 10}) {
    step = s;
    if (span / s <= 12)
      break;
  }
  svg += "<g stroke=\"#c8c8c8\" stroke-width=\"1\">\n";
  for (double d = ly0; d <= ly1; d += 1)
    svg +=
        llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n",
                      num(kLeft), num(py(std::pow(10, d))), num(kLeft + pw));
  for (int e = static_cast<int>(lx0); e <= static_cast<int>(lx1); ++e)
    if (((e % step) + step) % step == 0)
      svg +=
          llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n",
                        num(px(std::ldexp(1.0, e))), num(kTop), num(kTop + ph));
  svg += "</g>\n";
  svg += "<g font-size=\"12\" fill=\"#222222\">\n";
  for (int e = static_cast<int>(lx0); e <= static_cast<int>(lx1); ++e) {
    double x = px(std::ldexp(1.0, e));
    bool labelled = ((e % step) + step) % step == 0;
    svg += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" "
                         "stroke=\"#222222\"/>\n",
                         num(x), num(kTop + ph),
                         num(kTop + ph + (labelled ? 6 : 3)));
    if (labelled)
      svg += llvm::formatv("<text x=\"{0}\" y=\"{1}\" "
                           "text-anchor=\"middle\">{2}</text>\n",
                           num(x), num(kTop + ph + 22),
                           escape(axisBytes(std::ldexp(1.0, e))));
  }
  for (double d = ly0; d <= ly1; d += 1) {
    double y = py(std::pow(10, d));
    svg += llvm::formatv("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
                         "stroke=\"#222222\"/>\n",
                         num(kLeft - 6), num(y), num(kLeft));
    svg +=
        llvm::formatv("<text x=\"{0}\" y=\"{1}\" "
                      "text-anchor=\"end\">{2}</text>\n",
                      num(kLeft - 10), num(y + 4), axisGBps(std::pow(10, d)));
  }
  svg += "</g>\n";
  svg += llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
                       "fill=\"none\" stroke=\"#222222\"/>\n",
                       num(kLeft), num(kTop), num(pw), num(ph));
  svg += llvm::formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"14\" "
                       "text-anchor=\"middle\">bytes per rank (input buffer, "
                       "log scale)</text>\n",
                       num(kLeft + pw / 2), num(kHeight - 18));
  svg += llvm::formatv("<text x=\"22\" y=\"{0}\" font-size=\"14\" "
                       "text-anchor=\"middle\" transform=\"rotate(-90 22 "
                       "{0})\">busbw (GB/s, log scale)</text>\n",
                       num(kTop + ph / 2));

  // The curves.
  for (const Series &s : series) {
    if (s.points.empty())
      continue;
    std::string path;
    for (size_t i = 0; i < s.points.size(); ++i)
      path += llvm::formatv("{0}{1},{2}", i ? " L" : "M",
                            num(px(s.points[i].first)),
                            num(py(s.points[i].second)));
    svg +=
        llvm::formatv("<path d=\"{0}\" fill=\"none\" stroke=\"{1}\" "
                      "stroke-width=\"{2}\"{3} stroke-linejoin=\"round\"/>\n",
                      path, s.color, s.width,
                      s.dash.empty() ? std::string()
                                     : " stroke-dasharray=\"" + s.dash + "\"");
    if (s.markers)
      for (auto [x, y] : s.points)
        svg += llvm::formatv("<circle cx=\"{0}\" cy=\"{1}\" r=\"2.8\" "
                             "fill=\"{2}\"/>\n",
                             num(px(x)), num(py(y)), s.color);
  }
  // collc's algorithm where it changes (with the chunk count there):
  // rotated up and to the right of the point; where that would leave the
  // plot (near its top or right edge), level and to the left of the point,
  // which is above a rising curve.
  for (auto [index, name] : switches) {
    auto [x, y] = ours.points[index];
    double tx = px(x), ty = py(y);
    double width = 6.2 * name.size();
    bool fits =
        ty - 8 - 0.6 * width > kTop && tx + 4 + 0.8 * width < kLeft + pw;
    std::string text =
        fits ? llvm::formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\" "
                             "transform=\"rotate(-35 {0} {1})\">{2}</text>\n",
                             num(tx + 4), num(ty - 8), escape(name))
                   .str()
             : llvm::formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"11\" "
                             "text-anchor=\"end\">{2}</text>\n",
                             num(tx - 6), num(ty - 6), escape(name))
                   .str();
    svg += text;
  }

  // The legend, top left (busbw grows with size, so that corner is free).
  double lx = kLeft + 14, ly = kTop + 14;
  double lw = 0;
  for (const Series &s : series)
    lw = std::max(lw, 7.0 * s.label.size());
  lw += 60;
  svg +=
      llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" "
                    "height=\"{3}\" fill=\"white\" fill-opacity=\"0.9\" "
                    "stroke=\"#999999\"/>\n",
                    num(lx), num(ly), num(lw), num(22.0 * series.size() + 8));
  double row = ly + 20;
  // collc's choice, the baselines in order, the bound.
  std::vector<size_t> legendOrder = {1};
  for (size_t i = 2; i < series.size(); ++i)
    legendOrder.push_back(i);
  legendOrder.push_back(0);
  for (size_t index : legendOrder) {
    const Series &s = series[index];
    svg += llvm::formatv(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" "
        "stroke=\"{3}\" stroke-width=\"{4}\"{5}/>\n",
        num(lx + 10), num(row - 4), num(lx + 44), s.color, s.width,
        s.dash.empty() ? std::string()
                       : " stroke-dasharray=\"" + s.dash + "\"");
    svg += llvm::formatv("<text x=\"{0}\" y=\"{1}\" font-size=\"13\">{2}"
                         "</text>\n",
                         num(lx + 52), num(row), escape(s.label));
    row += 22;
  }
  svg += "</svg>\n";
  return svg;
}

} // namespace sweep
} // namespace collc
