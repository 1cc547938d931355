package returners

// pgjsonb.go is salt/returners/pgjsonb.py: returns, events and job loads
// in PostgreSQL's jsonb columns, in Salt's tables (PgjsonbSchema), over
// pgx. Options (returner.pgjsonb.<key>): host, port, db, user, pass and
// sslmode, sslcert, sslkey, sslrootcert, with Salt's defaults.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"brine/internal/fleet/proto"
	"brine/internal/value"
)

// PgjsonbSchema creates Salt's tables for the returner (the schema of
// pgjsonb.py's documentation), in a database created beforehand.
const PgjsonbSchema = `
CREATE TABLE jids (
   jid varchar(255) NOT NULL primary key,
   load jsonb NOT NULL
);
CREATE INDEX idx_jids_jsonb on jids USING gin (load) WITH (fastupdate=on);

CREATE TABLE salt_returns (
  fun varchar(50) NOT NULL,
  jid varchar(255) NOT NULL,
  return jsonb NOT NULL,
  id varchar(255) NOT NULL,
  success varchar(10) NOT NULL,
  full_ret jsonb NOT NULL,
  alter_time TIMESTAMP WITH TIME ZONE DEFAULT NOW());
CREATE INDEX idx_salt_returns_id ON salt_returns (id);
CREATE INDEX idx_salt_returns_jid ON salt_returns (jid);
CREATE INDEX idx_salt_returns_fun ON salt_returns (fun);
CREATE INDEX idx_salt_returns_return ON salt_returns USING gin (return) with (fastupdate=on);
CREATE INDEX idx_salt_returns_full_ret ON salt_returns USING gin (full_ret) with (fastupdate=on);

CREATE SEQUENCE seq_salt_events_id;
CREATE TABLE salt_events (
    id BIGINT NOT NULL UNIQUE DEFAULT nextval('seq_salt_events_id'),
    tag varchar(255) NOT NULL,
    data jsonb NOT NULL,
    alter_time TIMESTAMP WITH TIME ZONE DEFAULT NOW(),
    master_id varchar(255) NOT NULL);
CREATE INDEX idx_salt_events_tag on salt_events (tag);
CREATE INDEX idx_salt_events_data ON salt_events USING gin (data) with (fastupdate=on);
`

// Pgjsonb is the pgjsonb returner; besides returns and events it is a
// job cache (Salt's save_load, get_load, get_jid, get_fun, get_jids,
// get_minions, prep_jid).
var Pgjsonb = pgjsonb{}

type pgjsonb struct{}

func init() {
	Register(&Returner{
		Name:        "pgjsonb",
		Doc:         "Store returns and events in PostgreSQL (jsonb), in Salt's tables jids, salt_returns and salt_events.",
		Return:      Pgjsonb.Returner,
		EventReturn: Pgjsonb.EventReturn,
	})
}

// pgTimeout bounds one returner call's talk with the server.
const pgTimeout = 30 * time.Second

// connString builds the pgx connection string from the options.
func (pgjsonb) connString(cfg Config, ret *value.Map) (string, error) {
	o := Options(cfg, "returner.pgjsonb", ret, [][2]string{
		{"host", "host"}, {"user", "user"}, {"pass", "pass"}, {"db", "db"}, {"port", "port"},
		{"sslmode", "sslmode"}, {"sslcert", "sslcert"}, {"sslkey", "sslkey"}, {"sslrootcert", "sslrootcert"}, {"sslcrl", "sslcrl"},
	}, map[string]any{"host": "localhost", "user": "salt", "pass": "salt", "db": "salt", "port": int64(5432)})
	if v, ok := o.Get("sslcrl"); ok && value.Truthy(v) {
		return "", errors.New("pgjsonb returner: sslcrl is not supported by brine's PostgreSQL driver")
	}
	port, _ := o.Get("port")
	p, err := strconv.Atoi(strings.TrimSpace(value.Str(port)))
	if err != nil {
		return "", fmt.Errorf("pgjsonb returner: invalid port %q", value.Str(port))
	}
	var b strings.Builder
	kv := func(k, v string) {
		fmt.Fprintf(&b, "%s='%s' ", k, strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v))
	}
	get := func(k string) string { v, _ := o.Get(k); return value.Str(v) }
	kv("host", get("host"))
	kv("port", strconv.Itoa(p))
	kv("dbname", get("db"))
	kv("user", get("user"))
	kv("password", get("pass"))
	for _, k := range []string{"sslmode", "sslcert", "sslkey", "sslrootcert"} {
		if v, ok := o.Get(k); ok && value.Truthy(v) {
			kv(k, value.Str(v))
		}
	}
	return strings.TrimSpace(b.String()), nil
}

// with connects, runs fn in a transaction and commits it.
func (p pgjsonb) with(cfg Config, ret *value.Map, fn func(ctx context.Context, tx pgx.Tx) error) error {
	cs, err := p.connString(cfg, ret)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), pgTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, cs)
	if err != nil {
		return fmt.Errorf("pgjsonb returner could not connect to database: %w", err)
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(ctx, tx); err != nil {
		_ = tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}

func compactJSON(v any) string {
	return value.ToJSON(v, value.JSONOptions{Indent: -1, ItemSep: ",", KeySep: ":"})
}

func nowSeconds() float64 { return float64(time.Now().UnixNano()) / 1e9 }

// Returner stores one return in salt_returns.
func (p pgjsonb) Returner(cfg Config, ret *value.Map) error {
	get := func(k string) any { v, _ := ret.Get(k); return v }
	success := "false"
	if value.Truthy(get("success")) {
		success = "true"
	}
	return p.with(cfg, ret, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO salt_returns (fun, jid, return, id, success, full_ret, alter_time)
			VALUES ($1, $2, $3::text::jsonb, $4, $5, $6::text::jsonb, to_timestamp($7))`,
			value.Str(get("fun")), value.Str(get("jid")), compactJSON(get("return")), value.Str(get("id")),
			success, compactJSON(ret), nowSeconds())
		return err
	})
}

// masterID is the id the master's events are stored with: its id option,
// else Salt's default for a master, <hostname>_master.
func masterID(opts *value.Map) string {
	if opts != nil {
		if v, ok := opts.Get("id"); ok && value.Truthy(v) {
			return value.Str(v)
		}
	}
	h, _ := os.Hostname()
	return h + "_master"
}

// EventReturn stores events in salt_events.
func (p pgjsonb) EventReturn(cfg Config, events []*value.Map) error {
	id := masterID(cfg.Opts)
	return p.with(cfg, nil, func(ctx context.Context, tx pgx.Tx) error {
		for _, ev := range events {
			tag, _ := ev.Get("tag")
			data, ok := ev.Get("data")
			if !ok {
				data = ""
			}
			if _, err := tx.Exec(ctx, `INSERT INTO salt_events (tag, data, master_id, alter_time)
				VALUES ($1, $2::text::jsonb, $3, to_timestamp($4))`,
				value.Str(tag), compactJSON(data), id, nowSeconds()); err != nil {
				return err
			}
		}
		return nil
	})
}

// SaveLoad stores (or replaces) the load of job jid in jids.
func (p pgjsonb) SaveLoad(cfg Config, jid string, load *value.Map) error {
	return p.with(cfg, nil, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO jids (jid, load) VALUES ($1, $2::text::jsonb)
			ON CONFLICT (jid) DO UPDATE SET load = EXCLUDED.load`, jid, compactJSON(load))
		return err
	})
}

// query runs sql in a transaction and hands each row to row, its columns
// as text (jsonb columns are selected as ::text).
func (p pgjsonb) query(cfg Config, sql string, args []any, row func(cols []string) error) error {
	return p.with(cfg, nil, func(ctx context.Context, tx pgx.Tx) error {
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			cols := make([]string, len(vals))
			for i, v := range vals {
				cols[i] = fmt.Sprint(v)
			}
			if err := row(cols); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

func fromJSON(s string) (any, error) {
	v, err := value.FromJSON([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("pgjsonb returner: bad JSON from the database: %w", err)
	}
	return v, nil
}

// GetLoad returns the load of job jid ({} when unknown).
func (p pgjsonb) GetLoad(cfg Config, jid string) (any, error) {
	var out any = value.NewMap(0)
	err := p.query(cfg, `SELECT load::text FROM jids WHERE jid = $1`, []any{jid}, func(c []string) error {
		v, err := fromJSON(c[0])
		out = v
		return err
	})
	return out, err
}

// GetJID returns the full returns of job jid by minion.
func (p pgjsonb) GetJID(cfg Config, jid string) (*value.Map, error) {
	out := value.NewMap(0)
	err := p.query(cfg, `SELECT id, full_ret::text FROM salt_returns WHERE jid = $1`, []any{jid}, func(c []string) error {
		v, err := fromJSON(c[1])
		out.Set(c[0], v)
		return err
	})
	return out, err
}

// GetFun returns, by minion, the full return of the last job that ran
// fun. (Salt's query quotes jid MySQL's way, which PostgreSQL refuses;
// this is the query it means.)
func (p pgjsonb) GetFun(cfg Config, fun string) (*value.Map, error) {
	out := value.NewMap(0)
	err := p.query(cfg, `SELECT s.id, s.jid, s.full_ret::text FROM salt_returns s
		JOIN (SELECT MAX(jid) AS jid FROM salt_returns GROUP BY fun, id) max ON s.jid = max.jid
		WHERE s.fun = $1`, []any{fun}, func(c []string) error {
		v, err := fromJSON(c[2])
		out.Set(c[0], v)
		return err
	})
	return out, err
}

// GetJIDs returns every job as Salt's format_jid_instance describes it.
func (p pgjsonb) GetJIDs(cfg Config) (*value.Map, error) {
	out := value.NewMap(0)
	err := p.query(cfg, `SELECT jid, load::text FROM jids`, nil, func(c []string) error {
		v, err := fromJSON(c[1])
		if err != nil {
			return err
		}
		load, _ := v.(*value.Map)
		out.Set(c[0], JIDInstance(c[0], load))
		return nil
	})
	return out, err
}

// GetMinions lists the minions that returned something.
func (p pgjsonb) GetMinions(cfg Config) ([]string, error) {
	var out []string
	err := p.query(cfg, `SELECT DISTINCT id FROM salt_returns`, nil, func(c []string) error {
		out = append(out, c[0])
		return nil
	})
	return out, err
}

// PrepJID returns passed when given, else a new job id.
func (pgjsonb) PrepJID(_ Config, _ bool, passed string) string {
	if passed != "" {
		return passed
	}
	return proto.NewJID(time.Now())
}

var pyMonths = [...]string{"", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// JIDTime is Salt's jid_to_time: "2026, Nov 25 20:29:36.123456", or ""
// for a malformed jid.
func JIDTime(jid string) string {
	if len(jid) != 20 && (len(jid) <= 21 || jid[20] != '_') {
		return ""
	}
	mon, err := strconv.Atoi(jid[4:6])
	if err != nil || mon < 0 || mon >= len(pyMonths) {
		return ""
	}
	return fmt.Sprintf("%s, %s %s %s:%s:%s.%s", jid[:4], pyMonths[mon], jid[6:8], jid[8:10], jid[10:12], jid[12:14], jid[14:20])
}

// JIDInstance is Salt's format_jid_instance: a job's load as the job
// lists show it.
func JIDInstance(jid string, load *value.Map) *value.Map {
	if load == nil {
		load = value.NewMap(0)
	}
	get := func(k string, def any) any {
		if v, ok := load.Get(k); ok {
			return v
		}
		return def
	}
	out := value.NewMap(7)
	out.Set("Function", get("fun", "unknown-function"))
	args := get("arg", value.NewList())
	if _, ok := args.(*value.List); !ok {
		args = value.NewList()
	}
	out.Set("Arguments", args)
	out.Set("Target", get("tgt", "unknown-target"))
	out.Set("Target-type", get("tgt_type", "list"))
	out.Set("User", get("user", "root"))
	if md, ok := load.Get("metadata"); ok {
		out.Set("Metadata", md)
	} else if kw, ok := load.Get("kwargs"); ok {
		if km, ok := kw.(*value.Map); ok {
			if md, ok := km.Get("metadata"); ok {
				out.Set("Metadata", md)
			}
		}
	}
	out.Set("StartTime", JIDTime(jid))
	return out
}
