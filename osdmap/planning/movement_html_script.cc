// The page's scripts: Chart.js inlined as it is, then the code that draws
// every `.chart` box from the table named by its data-table attribute.
//   data-kind=osd    bars per OSD (after), dashes (before), triangles (peak),
//                    split into small multiples that each fit the page width
//                    at failure domain (data-domain) or host boundaries,
//                    host names and separators drawn;
//   data-kind=time   a curve over time, ticks in minutes, hours or days,
//                    vertical markers (rows with data-mark), a limit line;
//   data-kind=steps  a bar per step.
// data-nearfull/-backfillfull/-full/-limit (percent) add dashed lines.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

#include "osdmap/planning/movement_html_internal.h"

namespace crushkit::osdmap {
namespace {

constexpr const char* kDrawCharts = R"JS(
(function () {
  'use strict';
  var boxes = document.querySelectorAll('.chart');
  if (typeof Chart === 'undefined') {
    boxes.forEach(function (b) {
      var p = document.createElement('p');
      p.className = 'note';
      p.textContent = 'Chart not drawn: this page was generated without Chart.js (install ' +
          "Debian's libjs-chart.js, or set CRUSHKIT_CHART_JS to chart.min.js, and generate it " +
          'again). The table below carries every value.';
      b.appendChild(p);
    });
    return;
  }
  Chart.defaults.animation = false;
  Chart.defaults.font.size = 11;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.plugins.legend.labels.boxWidth = 12;

  function rows(box) {
    return Array.prototype.slice.call(
        document.querySelectorAll('#' + box.dataset.table + ' tbody tr'));
  }
  function num(v) { return v === undefined ? null : parseFloat(v); }
  var lineStyles = [['nearfull', '#e90'], ['backfillfull', '#d60'], ['full', '#c00'],
                    ['limit', '#808']];
  // The box's ratio lines (percent) for the 'ratios' plugin: drawn, not
  // datasets, so a chart of 300 OSDs does not carry 900 more points.
  function ratioLines(box) {
    var out = [];
    lineStyles.forEach(function (l) {
      var v = num(box.dataset[l[0]]);
      if (v === null || isNaN(v)) return;
      out.push({y: v, color: l[1], label: (l[0] === 'limit' ? '--max-fill' : l[0]) + ' ' + v + '%'});
    });
    return out;
  }
  // Dashed horizontal lines across the plot, labelled at the right end.
  Chart.register({
    id: 'ratios',
    afterDatasetsDraw: function (chart, args, opts) {
      if (!opts || !opts.lines) return;
      var y = chart.scales.y, a = chart.chartArea, ctx = chart.ctx, lastY = -1e9, right = a.right;
      ctx.save();
      ctx.font = '10px sans-serif';
      ctx.textAlign = 'right';
      ctx.setLineDash([5, 3]);
      opts.lines.slice().sort(function (p, q) { return q.y - p.y; }).forEach(function (l) {
        var py = y.getPixelForValue(l.y);
        if (py < a.top || py > a.bottom) return;
        ctx.strokeStyle = l.color;
        ctx.fillStyle = l.color;
        ctx.beginPath();
        ctx.moveTo(a.left, py);
        ctx.lineTo(a.right, py);
        ctx.stroke();
        // Labels of lines closer than the text's height go side by side.
        right = py - 2 - lastY >= 11 ? a.right - 2 : right;
        ctx.fillText(l.label, right, py - 2);
        lastY = py - 2;
        right -= ctx.measureText(l.label).width + 8;
      });
      ctx.restore();
    }
  });
  function canvasIn(box, height, label) {
    var wrap = document.createElement('div');
    wrap.className = 'chart-box';
    wrap.style.height = height + 'px';
    var c = document.createElement('canvas');
    c.setAttribute('role', 'img');
    c.setAttribute('aria-label', label);
    wrap.appendChild(c);
    box.appendChild(wrap);
    return c;
  }
  // Host names and separators over an OSD chart.
  Chart.register({
    id: 'groups',
    afterDatasetsDraw: function (chart, args, opts) {
      if (!opts || !opts.starts) return;
      var x = chart.scales.x, a = chart.chartArea, ctx = chart.ctx, n = chart.data.labels.length;
      ctx.save();
      ctx.strokeStyle = '#888';
      ctx.fillStyle = '#333';
      ctx.font = '10px sans-serif';
      ctx.textBaseline = 'top';
      opts.starts.forEach(function (s, i) {
        var left = s.index === 0 ? a.left :
            (x.getPixelForValue(s.index - 1) + x.getPixelForValue(s.index)) / 2;
        var end = i + 1 < opts.starts.length ? opts.starts[i + 1].index : n;
        var right = end >= n ? a.right :
            (x.getPixelForValue(end - 1) + x.getPixelForValue(end)) / 2;
        if (s.index > 0) {
          ctx.beginPath();
          ctx.moveTo(left, a.top);
          ctx.lineTo(left, a.bottom);
          ctx.stroke();
        }
        if (ctx.measureText(s.name).width + 4 < right - left) ctx.fillText(s.name, left + 2, a.top + 2);
      });
      ctx.restore();
    }
  });
  // Vertical markers (e.g. step starts) over a time chart.
  Chart.register({
    id: 'markers',
    afterDatasetsDraw: function (chart, args, opts) {
      if (!opts || !opts.list) return;
      var x = chart.scales.x, a = chart.chartArea, ctx = chart.ctx, lastRight = -1e9;
      ctx.save();
      ctx.strokeStyle = '#555';
      ctx.fillStyle = '#333';
      ctx.font = '10px sans-serif';
      ctx.setLineDash([2, 2]);
      opts.list.forEach(function (m) {
        var px = x.getPixelForValue(m.x);
        ctx.beginPath();
        ctx.moveTo(px, a.top);
        ctx.lineTo(px, a.bottom);
        ctx.stroke();
        var w = ctx.measureText(m.label).width;
        if (px + 2 > lastRight) {
          ctx.fillText(m.label, px + 2, a.top + 10);
          lastRight = px + 2 + w + 4;
        }
      });
      ctx.restore();
    }
  });

  function drawOsds(box, list, first) {
    var unit = box.dataset.unit, near = num(box.dataset.nearfull), full = num(box.dataset.full);
    var labels = [], before = [], after = [], peak = [], colors = [], starts = [], hasPeak = false;
    var domains = [];
    list.forEach(function (r, k) {
      var d = r.dataset, prev = k > 0 ? list[k - 1].dataset : null;
      if (!prev || d.host !== prev.host || d.domain !== prev.domain) {
        starts.push({index: k, name: d.host});
      }
      if (d.domain && domains.indexOf(d.domain) < 0) domains.push(d.domain);
      labels.push('osd.' + d.osd);
      var b = num(d.before), f = num(d.after), p = num(d.peak);
      before.push(b);
      after.push(f);
      peak.push(p);
      hasPeak = hasPeak || p !== null;
      colors.push(f !== null && full !== null && f >= full ? '#c00' :
                  f !== null && near !== null && f >= near ? '#e90' : '#36c');
    });
    var title = starts.length === 1 ? 'host ' + starts[0].name :
        'hosts ' + starts[0].name + ' .. ' + starts[starts.length - 1].name +
        ' (' + starts.length + ')';
    if (domains.length) {
      title = (domains.length === 1 ? domains[0] :
               domains[0] + ' .. ' + domains[domains.length - 1] + ' (' + domains.length + ')') +
          ': ' + title;
    }
    var c = canvasIn(box, first ? 250 : 210, 'OSD chart, ' + title);
    c.className = 'osd-chart';
    var sets = [
      {type: 'bar', label: unit === '%' ? 'fill after' : 'PGs after', data: after,
       backgroundColor: colors, order: 2, barPercentage: 1, categoryPercentage: 0.85},
      {type: 'line', label: 'before', data: before, showLine: false, pointStyle: 'dash',
       pointRadius: 4, borderColor: '#444', borderWidth: 1, order: 1}];
    if (hasPeak) {
      sets.push({type: 'line', label: 'peak during', data: peak, showLine: false,
                 pointStyle: 'triangle', pointRadius: 3, borderColor: '#a00',
                 backgroundColor: '#a00', order: 1});
    }
    new Chart(c, {
      type: 'bar',
      data: {labels: labels, datasets: sets},
      options: {
        plugins: {legend: {display: first}, groups: {starts: starts},
                  ratios: {lines: ratioLines(box)},
                  title: {display: true, text: title, align: 'start'}},
        scales: {
          x: {title: {display: true,
                      text: domains.length ? 'OSD (grouped by domain, then host)' :
                                             'OSD (grouped by host)'},
              // sampleSize: label widths measured on a sample, not all
              // (the 10,000-OSD page draws in a third of the time).
              ticks: {autoSkip: true, maxRotation: 90, minRotation: 60, font: {size: 9},
                      sampleSize: 8}},
          y: {beginAtZero: true, suggestedMax: unit === '%' ? 100 : undefined,
              title: {display: true, text: box.dataset.ytitle},
              ticks: {callback: function (v) { return unit === '%' ? v + '%' : v; }}}
        }
      }
    });
  }

  function osdChart(box) {
    var list = rows(box), perOsd = 4;
    var fit = Math.max(24, Math.floor(((box.clientWidth || 1000) - 70) / perOsd));
    // As many charts as needed, each as full as the others.
    var chunk = Math.ceil(list.length / Math.ceil(list.length / fit));
    for (var i = 0, first = true; i < list.length; first = false) {
      var end = Math.min(list.length, i + chunk);
      if (end < list.length) {
        // Break at a failure domain boundary in the chunk's second half,
        // else at a host boundary when one is in reach.
        var e = end, half = i + Math.ceil((end - i) / 2);
        while (e > half && list[e].dataset.domain === list[e - 1].dataset.domain) e--;
        if (e <= half) {
          e = end;
          while (e > i + 1 && list[e].dataset.host === list[e - 1].dataset.host) e--;
        }
        if (e > i + 1) end = e;
      }
      drawOsds(box, list.slice(i, end), first);
      i = end;
    }
  }

  // Minutes, hours or days, whichever gives 2 to 12 ticks of a round step.
  function timeAxis(maxSeconds) {
    var units = [['days', 86400, [1, 2, 5, 7, 10, 14, 30, 60, 90]],
                 ['hours', 3600, [1, 2, 3, 6, 12]], ['minutes', 60, [1, 2, 5, 10, 15, 30]],
                 ['seconds', 1, [1, 2, 5, 10, 15, 30]]];
    for (var u = 0; u < units.length; u++) {
      var span = maxSeconds / units[u][1];
      if (span < 2 && u + 1 < units.length) continue;
      var steps = units[u][2], step = steps[steps.length - 1];
      for (var k = 0; k < steps.length; k++) {
        if (span / steps[k] <= 12) { step = steps[k]; break; }
      }
      return {name: units[u][0], scale: units[u][1], step: step};
    }
  }

  function timeChart(box) {
    var pts = [], marks = [], xmax = 0;
    rows(box).forEach(function (r) {
      var s = num(r.dataset.s);
      xmax = Math.max(xmax, s);
      if (r.dataset.mark !== undefined) marks.push({s: s, label: r.dataset.mark});
      else pts.push({s: s, y: num(r.dataset.y)});
    });
    var ax = timeAxis(Math.max(xmax, 1)), yunit = box.dataset.yunit || '';
    var top = Math.ceil(Math.max(xmax, 1) / ax.scale / ax.step) * ax.step;
    var sets = [{label: box.dataset.ytitle, data: pts.map(function (p) {
      return {x: p.s / ax.scale, y: p.y};
    }), borderColor: '#36c', borderWidth: 2, pointRadius: 0, fill: false, order: 1}];
    var line = num(box.dataset.line);
    if (line !== null) {
      sets.push({label: box.dataset.linelabel, data: [{x: 0, y: line}, {x: top, y: line}],
                 borderColor: '#c00', borderWidth: 1, borderDash: [5, 3], pointRadius: 0,
                 fill: false, order: 0});
    }
    var c = canvasIn(box, 280, box.dataset.ytitle + ' over time');
    c.className = 'time-chart';
    new Chart(c, {
      type: 'line',
      data: {datasets: sets},
      options: {
        parsing: true,
        plugins: {markers: {list: marks.map(function (m) {
          return {x: m.s / ax.scale, label: m.label};
        })}},
        scales: {
          x: {type: 'linear', min: 0, max: top,
              title: {display: true, text: 'time since the start (' + ax.name + ')'},
              ticks: {stepSize: ax.step, callback: function (v) {
                return v + ' ' + ax.name.charAt(0);
              }}},
          y: {beginAtZero: true, title: {display: true, text: box.dataset.ytitle},
              ticks: {callback: function (v) { return v + yunit; }}}
        }
      }
    });
  }

  function stepChart(box) {
    var list = rows(box), labels = [], ys = [], osds = [];
    list.forEach(function (r) {
      labels.push(r.dataset.label);
      ys.push(num(r.dataset.y));
      osds.push(r.dataset.osd);
    });
    var c = canvasIn(box, 260, box.dataset.ytitle + ' per step');
    c.className = 'step-chart';
    var sets = [{type: 'bar', label: 'fullest receiving OSD at the step\'s worst moment',
                 data: ys, backgroundColor: '#36c', order: 2}];
    new Chart(c, {
      type: 'bar',
      data: {labels: labels, datasets: sets},
      options: {
        plugins: {ratios: {lines: ratioLines(box)},
                  tooltip: {callbacks: {afterLabel: function (ctx) {
          return ctx.datasetIndex === 0 && osds[ctx.dataIndex] ? 'osd.' + osds[ctx.dataIndex] : '';
        }}}},
        scales: {
          x: {title: {display: true, text: 'step (as the script\'s step_N)'}},
          y: {beginAtZero: true, suggestedMax: 100, title: {display: true, text: box.dataset.ytitle},
              ticks: {callback: function (v) { return v + '%'; }}}
        }
      }
    });
  }

  boxes.forEach(function (box) {
    var kind = box.dataset.kind;
    if (kind === 'osd') osdChart(box);
    else if (kind === 'time') timeChart(box);
    else if (kind === 'steps') stepChart(box);
  });
  // A printout or PDF gets every value: the value tables open up (print
  // CSS) and the charts redraw at the paper's width.
  window.addEventListener('beforeprint', function () {
    Object.values(Chart.instances).forEach(function (ch) { ch.resize(); });
  });
})();
)JS";

}  // namespace

std::string DefaultChartLibrary() {
  const char* env = std::getenv("CRUSHKIT_CHART_JS");
  std::ifstream in(env != nullptr && *env != '\0' ? env : kChartLibraryPath, std::ios::binary);
  if (!in) return "";
  std::ostringstream text;
  text << in.rdbuf();
  return in.bad() ? "" : text.str();
}

namespace internal {

std::string ChartScripts(const std::string& library) {
  std::string out;
  if (!library.empty()) {
    // "</script" inside the library would end the element early; "<\/" is
    // the same text to JavaScript in a string or a regular expression
    // (Chart.js 3.9.1 has none).
    absl::StrAppend(
        &out, "<script>\n",
        absl::StrReplaceAll(library, {{"</script", "<\\/script"}, {"</SCRIPT", "<\\/SCRIPT"}}),
        "\n</script>\n");
  }
  absl::StrAppend(&out, "<script>", kDrawCharts, "</script>\n");
  return out;
}

}  // namespace internal
}  // namespace crushkit::osdmap
