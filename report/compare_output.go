package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// prec is the number of decimals a metric's values are shown with.
func (m CompareMetric) prec() int {
	switch m.kind {
	case percentMetric:
		return 1
	}
	return 3 // seconds to the millisecond; slowdown
}

// signed formats v with an explicit sign and prec decimals; "inf" for ±Inf.
func signed(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.IsInf(v, 1):
		return "+inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// absUnit is the unit of a metric's absolute change.
func (m CompareMetric) absUnit() string {
	switch m.kind {
	case timeMetric:
		return " s"
	case percentMetric:
		return " pt"
	}
	return ""
}

// changeText shows the change absolute and relative: "+0.41 s (+12.8%)".
func (m MetricComparison) changeText() string {
	if math.IsNaN(m.Change) {
		return "-"
	}
	return signed(m.Change, m.Metric.prec()) + m.Metric.absUnit() + " (" + signed(m.RelChange(), 1) + "%)"
}

// ciText shows the 95% interval of the change: "[+0.30, +0.52]".
func (m MetricComparison) ciText() string {
	if math.IsNaN(m.ChangeCI) {
		return "-"
	}
	p := m.Metric.prec()
	return "[" + signed(m.Change-m.ChangeCI, p) + ", " + signed(m.Change+m.ChangeCI, p) + "]"
}

// testText names the test and its degrees of freedom: "paired t, df 4".
func (m MetricComparison) testText() string {
	if m.Test == "" {
		return "none (" + m.untestedReason() + ")"
	}
	prec := 1
	if m.DF == math.Trunc(m.DF) {
		prec = 0
	}
	return m.Test + ", df " + strconv.FormatFloat(m.DF, 'f', prec, 64)
}

// untestedReason says why there is no test: too few seeds, or no values.
func (m MetricComparison) untestedReason() string {
	if len(m.Base) == 0 || len(m.Cand) == 0 {
		return "no values"
	}
	return "1 seed"
}

// pText shows the p-value: "0.003", "<0.001".
func (m MetricComparison) pText() string {
	switch {
	case math.IsNaN(m.P):
		return "-"
	case m.P < 0.001:
		return "<0.001"
	}
	return strconv.FormatFloat(m.P, 'f', 3, 64)
}

// checkText summarises the metric's checks: "FAIL >+5%", "pass <-2pt",
// "FAIL untested >+5%", "untested >+5%", or "" without checks.
func (m MetricComparison) checkText() string {
	var parts []string
	for _, c := range m.Checks {
		verdict := "pass"
		switch {
		case c.Regression:
			verdict = "FAIL"
		case c.Failed:
			verdict = "FAIL untested"
		case c.Untested:
			verdict = "untested"
		}
		part := verdict + " " + c.Threshold.limitText()
		if c.Exceeded && !c.Regression && !c.Untested {
			part += " (beyond, n.s.)"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// Table returns the comparison as a table: per cell and metric the seeds of
// both sides, baseline and candidate mean ± 95% CI, the change and its
// interval, the test and p-value, whether the change is significant and which
// way, and the verdicts of the checks.
func (c *Comparison) Table() *Table {
	t := &Table{Title: c.headline()}
	for _, k := range c.Labels {
		t.Columns = append(t.Columns, Column{Header: k, Name: k})
	}
	t.Columns = append(t.Columns,
		Column{Header: "metric", Name: "metric"},
		Column{Header: "seeds", Name: "seeds", Align: AlignRight},
		Column{Header: "baseline", Name: "baseline", Align: AlignRight},
		Column{Header: "candidate", Name: "candidate", Align: AlignRight},
		Column{Header: "change", Name: "change", Align: AlignRight},
		Column{Header: "95% CI of change", Name: "change_ci95", Align: AlignRight},
		Column{Header: "test", Name: "test"},
		Column{Header: "p", Name: "p", Align: AlignRight},
		Column{Header: "significant", Name: "significant"},
		Column{Header: "check", Name: "check"},
	)
	for _, cell := range c.Cells {
		for _, m := range cell.Metrics {
			var row []Cell
			for _, k := range c.Labels {
				row = append(row, Str(cell.Labels[k]))
			}
			p := m.Metric.prec()
			row = append(row, Str(m.Metric.Title),
				Str(fmt.Sprintf("%d/%d", len(m.Base), len(m.Cand))),
				MeanCI(m.BaseMean, m.BaseCI, p), MeanCI(m.CandMean, m.CandCI, p),
				Str(m.changeText()), Str(m.ciText()), Str(m.testText()), Str(m.pText()),
				Str(m.Direction()), Str(m.checkText()))
			t.AddRow(row...)
		}
	}
	t.Notes = []string{
		"seeds: runs compared on the baseline/candidate side. Values are means over seeds ± the half-width of the 95% confidence interval (Student's t).",
		"Test: " + PairedT + " on the per-seed differences when both sides ran the same seeds (common random numbers: a seed fixes placement, task-time noise and heartbeat phases), else " + WelchT + " on the per-seed values.",
		"A check fails when the change is beyond its limit (% is relative to the baseline mean) and significant (its 95% interval excludes 0). With one seed on a side nothing is tested: a change beyond the limit then fails as untested" + c.untestedNote() + ".",
	}
	return t
}

// untestedNote completes the table's note on untested checks.
func (c *Comparison) untestedNote() string {
	if c.AllowUntested {
		return ", except that --allow-untested lets it pass"
	}
	return " (--allow-untested lets it pass)"
}

// untestedFailures counts the checks that failed untested.
func (c *Comparison) untestedFailures() int { return c.Failures() - c.Regressions() }

// headline is the one-line verdict.
func (c *Comparison) headline() string {
	n, u, checks := c.Regressions(), c.untestedFailures(), c.Checks()
	over := fmt.Sprintf("%d check%s over %d cell%s", checks, Plural(checks), len(c.Cells), Plural(len(c.Cells)))
	switch {
	case checks == 0:
		return fmt.Sprintf("report compare: %d cell%s, no thresholds", len(c.Cells), Plural(len(c.Cells)))
	case n == 0 && u == 0:
		return "report compare: no regression in " + over
	case u == 0:
		return fmt.Sprintf("report compare: %d regression%s in %s", n, Plural(n), over)
	}
	return fmt.Sprintf("report compare: %d regression%s and %d untested change%s beyond a limit in %s", n, Plural(n), u, Plural(u), over)
}

// failures describes each failed check in one line.
func (c *Comparison) failures() []string {
	var out []string
	for _, cell := range c.Cells {
		for _, m := range cell.Metrics {
			for _, ch := range m.Checks {
				switch {
				case ch.Regression:
					out = append(out, fmt.Sprintf("%s: %s changed %s, 95%% CI %s (%s, p %s), beyond %s",
						cell.Name, m.Metric.Name, m.changeText(), m.ciText(), m.testText(), m.pText(), ch.Threshold))
				case ch.Failed:
					out = append(out, fmt.Sprintf("%s: %s changed %s, beyond %s, untested (%s): run more seeds, or pass --allow-untested",
						cell.Name, m.Metric.Name, m.changeText(), ch.Threshold, m.untestedReason()))
				}
			}
		}
	}
	return out
}

// WriteText writes the comparison for a terminal: the table, then the failed
// checks.
func (c *Comparison) WriteText(w io.Writer) error {
	if err := c.Table().WriteText(w); err != nil {
		return err
	}
	if f := c.failures(); len(f) > 0 {
		if _, err := io.WriteString(w, "\n"+c.failuresHeading()+":\n  "+strings.Join(f, "\n  ")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// WriteMarkdown writes the comparison for a CI job summary page (GitHub
// Markdown): the verdict, the baseline and candidate sources, the thresholds,
// the failed checks, a table of every check, and the full table of metrics in a
// collapsed <details> block.
func (c *Comparison) WriteMarkdown(w io.Writer, baseline, candidate string) error {
	var b strings.Builder
	b.WriteString("## " + c.headline() + "\n\n")
	fmt.Fprintf(&b, "Baseline `%s`, candidate `%s`.", baseline, candidate)
	if len(c.Thresholds) > 0 {
		rules := make([]string, len(c.Thresholds))
		for i, t := range c.Thresholds {
			rules[i] = "`" + t.String() + "`"
		}
		b.WriteString(" Thresholds: " + strings.Join(rules, ", ") + ".")
	}
	b.WriteString("\n\n")
	if f := c.failures(); len(f) > 0 {
		b.WriteString("**" + c.failuresHeading() + "**\n\n")
		for _, line := range f {
			b.WriteString("- " + mdEscape(line) + "\n")
		}
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if checks := c.checksTable(); len(checks.Rows) > 0 {
		checks.Title = ""
		if _, err := io.WriteString(w, "### Checks\n\n"); err != nil {
			return err
		}
		if err := checks.WriteMarkdown(w); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(w, "\n<details><summary>All metrics: mean ± 95% CI over seeds</summary>\n\n"); err != nil {
		return err
	}
	t := c.Table()
	t.Title = ""
	if err := t.WriteMarkdown(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n</details>\n")
	return err
}

// failuresHeading heads the list of failed checks.
func (c *Comparison) failuresHeading() string {
	if c.untestedFailures() > 0 {
		return "Failed checks"
	}
	return "Regressions"
}

// checksTable lists every check: cell, rule, change, interval, test, p-value
// and verdict.
func (c *Comparison) checksTable() *Table {
	t := &Table{}
	for _, k := range c.Labels {
		t.Columns = append(t.Columns, Column{Header: k, Name: k})
	}
	t.Columns = append(t.Columns,
		Column{Header: "rule", Name: "rule"},
		Column{Header: "change", Name: "change", Align: AlignRight},
		Column{Header: "95% CI of change", Name: "change_ci95", Align: AlignRight},
		Column{Header: "test", Name: "test"},
		Column{Header: "p", Name: "p", Align: AlignRight},
		Column{Header: "verdict", Name: "verdict"})
	for _, cell := range c.Cells {
		for _, m := range cell.Metrics {
			for _, ch := range m.Checks {
				var row []Cell
				for _, k := range c.Labels {
					row = append(row, Str(cell.Labels[k]))
				}
				verdict := "pass"
				switch {
				case ch.Regression:
					verdict = "**FAIL**"
				case ch.Failed:
					verdict = "**FAIL** untested (" + m.untestedReason() + ")"
				case ch.Untested:
					verdict = "untested (" + m.untestedReason() + ")"
				case ch.Exceeded:
					verdict = "pass (beyond the limit, not significant)"
				}
				row = append(row, Str(ch.Threshold.String()), Str(m.changeText()), Str(m.ciText()), Str(m.testText()), Str(m.pText()), Str(verdict))
				t.AddRow(row...)
			}
		}
	}
	return t
}

// JUnit XML (the Ant/Jenkins schema that CI systems read).
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Errors   int         `xml:"errors,attr"`
		Time     string      `xml:"time,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitMessage `xml:"failure"`
		Skipped   *junitMessage `xml:"skipped"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitMessage struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes the checks as JUnit XML: one test suite per cell, one test
// case per (cell, threshold) named by the rule, failed when the check found a
// regression or an untested change beyond the limit (CheckResult.Failed), and
// skipped when it could not be tested and may pass. Times are 0,
// so that equal inputs give equal bytes.
func (c *Comparison) WriteJUnit(w io.Writer) error {
	out := junitSuites{Name: "report compare"}
	for _, cell := range c.Cells {
		s := junitSuite{Name: cell.Name, Time: "0"}
		for _, m := range cell.Metrics {
			for _, ch := range m.Checks {
				p := m.Metric.prec()
				detail := fmt.Sprintf("%s: baseline %s (%d seeds), candidate %s (%d seeds), change %s, 95%% CI %s, %s, p %s",
					m.Metric.Title, MeanCI(m.BaseMean, m.BaseCI, p).Text, len(m.Base), MeanCI(m.CandMean, m.CandCI, p).Text, len(m.Cand),
					m.changeText(), m.ciText(), m.testText(), m.pText())
				tc := junitCase{Name: ch.Threshold.String(), Classname: "compare." + cell.Name, Time: "0", SystemOut: detail}
				switch {
				case ch.Regression:
					tc.Failure = &junitMessage{Message: fmt.Sprintf("%s changed %s, significant and beyond %s", m.Metric.Name, m.changeText(), ch.Threshold.limitText()), Type: "regression", Text: detail}
					s.Failures++
				case ch.Failed:
					tc.Failure = &junitMessage{Message: fmt.Sprintf("%s changed %s, beyond %s, and no test over seeds was possible (%s)", m.Metric.Name, m.changeText(), ch.Threshold.limitText(), m.untestedReason()), Type: "untested", Text: detail}
					s.Failures++
				case ch.Untested:
					tc.Skipped = &junitMessage{Message: "no test over seeds possible: " + m.untestedReason()}
					s.Skipped++
				}
				s.Tests++
				s.Cases = append(s.Cases, tc)
			}
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Skipped += s.Skipped
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write JUnit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}
