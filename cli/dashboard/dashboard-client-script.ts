/**
 * The dashboard's one script of its own, served as `/assets/dashboard.js` next to the bundled ECharts
 * (`/assets/echarts.min.js`): it draws each `.echart` element from the option in its `data-option` attribute, as
 * SVG so the page stays light, with tooltips. The page's CSP allows scripts from its own origin only, so this is
 * a file, not inline code.
 */
export const DASHBOARD_CLIENT_SCRIPT = `'use strict';
(function () {
  var charts = [];
  document.querySelectorAll('.echart').forEach(function (element) {
    var option = JSON.parse(element.getAttribute('data-option'));
    if (!option.tooltip) option.tooltip = { trigger: option.series && option.series[0] && option.series[0].type === 'heatmap' ? 'item' : 'axis' };
    var chart = echarts.init(element, null, { renderer: 'svg' });
    chart.setOption(option);
    charts.push(chart);
  });
  window.addEventListener('resize', function () {
    charts.forEach(function (chart) { chart.resize(); });
  });
  document.documentElement.setAttribute('data-charts-ready', String(charts.length));
})();
`;
