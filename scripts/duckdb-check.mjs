// duckdb-check.mjs: read tracereplay Parquet files with DuckDB, an independent
// reader, and print what it sees: per file the row count, every column's DuckDB
// type, repetition (REQUIRED/OPTIONAL/…), null count and min/max of numeric
// columns, the compression codecs and the key/value metadata.
//
// Usage: node duckdb-check.mjs [--fact NAME=SQL]... [--expect KEY=VALUE]... DIR [DIR...]
//
// Every *.parquet under each DIR (recursively) is read. Each fact has a key:
//   TABLE.rows, TABLE.compression, TABLE.meta.KEY,
//   TABLE.COLUMN.type, TABLE.COLUMN.repetition, TABLE.COLUMN.nulls,
//   TABLE.COLUMN.min, TABLE.COLUMN.max (numeric columns),
//   TABLE.COLUMN.elements (list columns: total number of elements),
//   TABLE.COLUMN.minus1 (numeric columns: rows holding -1, the Go-side
//   "unknown" that must be stored as null so that avg() never counts it),
//   TABLE.minus1 (the numeric columns holding -1, comma-separated, or none)
// where TABLE is the file's path below DIR without ".parquet" (jobs, tasks,
// policy=fifo/jobs, …). Each file is also a view named TABLE, and
// --fact NAME=SQL adds the fact NAME: the first column of the first row of SQL
// (lists print as JSON), e.g. --fact first="SELECT job_id FROM jobs LIMIT 1". --expect KEY=VALUE fails the run (exit 1) unless the fact
// KEY exists and prints as VALUE. Exit 2 on bad usage.
//
// Needs @duckdb/node-api (npm install @duckdb/node-api); scripts/duckdb-check.sh
// installs it into a temporary directory and runs the checks CI relies on.
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function usage(msg) {
  console.error(`duckdb-check: ${msg}\nusage: node duckdb-check.mjs [--fact NAME=SQL]... [--expect KEY=VALUE]... DIR [DIR...]`);
  process.exit(2);
}

const expects = [];
const queries = [];
const dirs = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--expect') {
    const kv = argv[++i];
    if (kv === undefined || !kv.includes('=')) usage('--expect needs KEY=VALUE');
    const at = kv.indexOf('=');
    expects.push([kv.slice(0, at), kv.slice(at + 1)]);
  } else if (a === '--fact') {
    const kv = argv[++i];
    if (kv === undefined || !kv.includes('=')) usage('--fact needs NAME=SQL');
    const at = kv.indexOf('=');
    queries.push([kv.slice(0, at), kv.slice(at + 1)]);
  } else if (a === '-h' || a === '--help') {
    usage('help');
  } else if (a.startsWith('-')) {
    usage(`unknown flag ${a}`);
  } else {
    dirs.push(a);
  }
}
if (dirs.length === 0) usage('no directory given');

function parquetFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.parquet')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const ident = (s) => `"${s.replaceAll('"', '""')}"`;
const show = (v) => (v === null || v === undefined ? 'null' : typeof v === 'object' ? JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? String(x) : x)) : String(v));
const numeric = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL.*)$/;

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const rows = async (sql) => (await conn.runAndReadAll(sql)).getRowObjectsJS();

const facts = new Map();
for (const dir of dirs) {
  const files = parquetFiles(dir);
  if (files.length === 0) usage(`no .parquet files under ${dir}`);
  for (const file of files) {
    const table = relative(dir, file).replace(/\.parquet$/, '');
    const src = `read_parquet(${sqlString(file)})`;
    await conn.run(`CREATE OR REPLACE VIEW ${ident(table)} AS SELECT * FROM ${src}`);
    const cols = await rows(`DESCRIBE SELECT * FROM ${src}`);
    const reps = new Map();
    for (const r of await rows(`SELECT name, repetition_type FROM parquet_schema(${sqlString(file)})`)) {
      if (!reps.has(r.name)) reps.set(r.name, r.repetition_type);
    }
    const aggs = ['count(*) AS "rows"'];
    cols.forEach((c, i) => {
      aggs.push(`count(*) - count(${ident(c.column_name)}) AS n${i}`);
      if (numeric.test(c.column_type)) {
        aggs.push(`min(${ident(c.column_name)}) AS lo${i}`, `max(${ident(c.column_name)}) AS hi${i}`);
        aggs.push(`count(*) FILTER (WHERE ${ident(c.column_name)} = -1) AS m${i}`);
      }
      if (c.column_type.endsWith('[]')) aggs.push(`coalesce(sum(len(${ident(c.column_name)})), 0) AS el${i}`);
    });
    const [agg] = await rows(`SELECT ${aggs.join(', ')} FROM ${src}`);
    facts.set(`${table}.rows`, show(agg.rows));
    const codecs = await rows(`SELECT DISTINCT compression FROM parquet_metadata(${sqlString(file)}) ORDER BY 1`);
    facts.set(`${table}.compression`, codecs.map((r) => r.compression).join(',') || 'none');
    for (const r of await rows(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sqlString(file)}) ORDER BY 1`)) {
      facts.set(`${table}.meta.${r.k}`, r.v);
    }
    console.log(`\n== ${file}: ${show(agg.rows)} rows, compression ${facts.get(`${table}.compression`)}`);
    console.log(`${'column'.padEnd(20)} ${'type'.padEnd(12)} ${'repetition'.padEnd(10)} ${'nulls'.padStart(8)}  min .. max`);
    const minus1 = [];
    cols.forEach((c, i) => {
      const key = `${table}.${c.column_name}`;
      if (`m${i}` in agg) {
        facts.set(`${key}.minus1`, show(agg[`m${i}`]));
        if (Number(agg[`m${i}`]) > 0) minus1.push(c.column_name);
      }
      facts.set(`${key}.type`, c.column_type);
      facts.set(`${key}.repetition`, reps.get(c.column_name) ?? '?');
      facts.set(`${key}.nulls`, show(agg[`n${i}`]));
      let range = '';
      if (`lo${i}` in agg) {
        facts.set(`${key}.min`, show(agg[`lo${i}`]));
        facts.set(`${key}.max`, show(agg[`hi${i}`]));
        range = `${show(agg[`lo${i}`])} .. ${show(agg[`hi${i}`])}`;
      }
      if (`el${i}` in agg) {
        facts.set(`${key}.elements`, show(agg[`el${i}`]));
        range = `${show(agg[`el${i}`])} elements`;
      }
      console.log(`${c.column_name.padEnd(20)} ${c.column_type.padEnd(12)} ${facts.get(`${key}.repetition`).padEnd(10)} ${show(agg[`n${i}`]).padStart(8)}  ${range}`);
    });
    facts.set(`${table}.minus1`, minus1.join(',') || 'none');
    for (const [k, v] of facts) {
      if (k.startsWith(`${table}.meta.`)) console.log(`meta ${k.slice(table.length + 6)} = ${v}`);
    }
  }
}

if (queries.length > 0) console.log('');
for (const [name, sql] of queries) {
  const r = (await conn.runAndReadAll(sql)).getRowsJS();
  const v = r.length > 0 && r[0].length > 0 ? show(r[0][0]) : '(no rows)';
  facts.set(name, v);
  console.log(`fact ${name} = ${v}`);
}

let failed = 0;
for (const [k, want] of expects) {
  const got = facts.get(k);
  if (got !== want) {
    failed++;
    console.error(`MISMATCH ${k}: got ${got === undefined ? '(no such fact)' : JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  }
}
if (expects.length > 0) console.log(`\n${expects.length - failed} of ${expects.length} expectations hold`);
process.exit(failed > 0 ? 1 : 0);
