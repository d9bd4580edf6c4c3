//! SVG charts of a report, with plotters' SVG backend (no system fonts needed): sort
//! throughput against size per implementation and variant, the contention sweep, and the
//! graph crossover.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::record::{Record, Report};
use crate::error::{Error, Result};

/// One line of a chart: a name and its (x, y) points.
pub type Series = (String, Vec<(f64, f64)>);

fn chart_err(e: impl std::fmt::Display) -> Error {
    Error::invalid(format!("chart: {e}"))
}

/// Draws `series` as lines with markers. The x axis is log2 of the value when `log2_x`.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
    log2_x: bool,
) -> Result<()> {
    let pts = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for &(x, y) in pts {
        let x = if log2_x { x.log2() } else { x };
        x0 = x0.min(x);
        x1 = x1.max(x);
        if y.is_finite() {
            y1 = y1.max(y);
        }
    }
    if !x0.is_finite() || !x1.is_finite() {
        return Err(chart_err("no points"));
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let y1 = if y1 > 0.0 { y1 * 1.1 } else { 1.0 };
    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(chart_err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d((x0 - 0.25)..(x1 + 0.25), 0.0..y1)
        .map_err(chart_err)?;
    let fmt_x = |x: &f64| {
        if log2_x {
            format!("2^{}", x.round() as i64)
        } else {
            format!("{x}")
        }
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&fmt_x)
        .draw()
        .map_err(chart_err)?;
    for (i, (name, points)) in series.iter().enumerate() {
        let color = Palette99::pick(i).mix(0.9);
        let mut p: Vec<(f64, f64)> = points
            .iter()
            .filter(|(_, y)| y.is_finite())
            .map(|&(x, y)| (if log2_x { x.log2() } else { x }, y))
            .collect();
        p.sort_by(|a, b| a.0.total_cmp(&b.0));
        chart
            .draw_series(LineSeries::new(p.clone(), color.stroke_width(2)))
            .map_err(chart_err)?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart
            .draw_series(p.into_iter().map(|xy| Circle::new(xy, 3, color.filled())))
            .map_err(chart_err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(chart_err)?;
    root.present().map_err(chart_err)?;
    Ok(())
}

fn group<'a>(
    records: impl Iterator<Item = &'a Record>,
    name: impl Fn(&Record) -> String,
    xy: impl Fn(&Record) -> (f64, f64),
) -> Vec<Series> {
    let mut m: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    for r in records {
        m.entry(name(r)).or_default().push(xy(r));
    }
    m.into_iter().collect()
}

/// Writes every chart the report has data for into `dir` as `<stem>-<chart>.svg`.
pub fn write_all(report: &Report, dir: &Path, stem: &str) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut files = Vec::new();
    let platform = report
        .environment
        .gpu_name
        .clone()
        .unwrap_or_else(|| format!("CPU, {} threads", report.environment.cpu_threads));

    // Sort throughput against size: the sort suite and the peers' full-key sorts, one chart per
    // key type and distribution.
    let sorts: Vec<&Record> = report
        .records
        .iter()
        .filter(|r| {
            (r.suite == "sort" || r.suite == "peers")
                && (r.unit == "Gkeys/s" || r.unit == "Gpairs/s")
                && !r.extra.contains_key("begin_bit")
        })
        .collect();
    let mut kinds: Vec<(&str, &str)> = sorts
        .iter()
        .map(|r| (r.dtype.as_str(), r.distribution.as_str()))
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    for (dtype, dist) in kinds {
        let series = group(
            sorts
                .iter()
                .copied()
                .filter(|r| r.dtype == dtype && r.distribution == dist),
            |r| format!("{} {}", r.implementation, r.variant),
            |r| (r.n as f64, r.throughput),
        );
        let unit = if dtype.contains('/') {
            "Gpairs/s"
        } else {
            "Gkeys/s"
        };
        let suffix = if dist == "uniform" {
            String::new()
        } else {
            format!("-{dist}")
        };
        let p = dir.join(format!(
            "{stem}-sort-{}{suffix}.svg",
            dtype.replace('/', "-")
        ));
        line_chart(
            &p,
            &format!("Sort {dtype}, {dist} keys ({platform})"),
            "n",
            unit,
            &series,
            true,
        )?;
        files.push(p);
    }

    let cont: Vec<&Record> = report.suite("contention").collect();
    if !cont.is_empty() {
        let series = group(
            cont.into_iter(),
            |r| format!("{} {}", r.implementation, r.variant),
            |r| {
                (
                    r.extra
                        .get("distinct")
                        .and_then(|d| d.as_f64())
                        .unwrap_or(1.0),
                    r.throughput,
                )
            },
        );
        let p = dir.join(format!("{stem}-contention.svg"));
        line_chart(
            &p,
            &format!("Histogram contention, u8 samples ({platform})"),
            "distinct values",
            "Gsamples/s",
            &series,
            true,
        )?;
        files.push(p);
    }

    let graph: Vec<&Record> = report.suite("graph").collect();
    if !graph.is_empty() {
        let series = group(
            graph.into_iter(),
            |r| {
                let launch = r
                    .extra
                    .get("launch")
                    .and_then(|l| l.as_str())
                    .unwrap_or("?");
                format!("{} {launch}", r.variant)
            },
            |r| (r.n as f64, r.throughput),
        );
        let p = dir.join(format!("{stem}-graph.svg"));
        line_chart(
            &p,
            &format!("Stream launches vs CUDA graph, u32 keys ({platform})"),
            "n",
            "Gkeys/s",
            &series,
            true,
        )?;
        files.push(p);
    }

    let scan: Vec<&Record> = report.suite("scan").collect();
    if !scan.is_empty() {
        let series = group(
            scan.into_iter(),
            |r| format!("{} {}", r.implementation, r.variant),
            |r| (r.n as f64, r.throughput),
        );
        let p = dir.join(format!("{stem}-scan.svg"));
        line_chart(
            &p,
            &format!("Exclusive scan u32 ({platform})"),
            "n",
            "GB/s (read + write)",
            &series,
            true,
        )?;
        files.push(p);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_an_svg() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.svg");
        let s: Vec<Series> = vec![
            (
                "histosort three-phase-b4".into(),
                vec![(1024.0, 0.5), (1048576.0, 2.0)],
            ),
            (
                "cub SortKeys".into(),
                vec![(1024.0, 0.2), (1048576.0, 12.9)],
            ),
        ];
        line_chart(&p, "Sort u32", "n", "Gkeys/s", &s, true).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains("<svg") && text.contains("cub SortKeys") && text.contains("2^20"));
        assert!(line_chart(&p, "empty", "n", "y", &[], true).is_err());
    }
}
