package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
)

const tokenUsage = `Usage: timetable token create [--name N] [--scopes read,write,admin] [--kinds K1,K2] [--site ID]...
       timetable token create --dynamodb [--name N] [--scopes read,write,admin] [--tables T1,T2]
       timetable token list
       timetable token revoke ID [--dynamodb]

Makes, lists and revokes API tokens (scopes read, write, admin; limited to
kinds with --kinds, to web-analytics sites with --site) and, with
--dynamodb, access keys for the DynamoDB endpoint (SigV4; scopes read,
write, admin; limited to tables with --tables). A token limited to kinds
reaches no site, one limited to sites no kind. A secret is printed once,
when made. On a data folder (--data) or a backend (--backend) no token is
needed; on a server, an admin token limited to nothing. On a remote
backend the tokens and keys are in its auth table (--auth-table), which
every server on that backend reads. See docs/security.md.

Examples:
  timetable token create --name dashboards --scopes read
  timetable token create --name devices --scopes write --kinds SENSOR
  timetable token create --name blog-dashboard --scopes read --site blog
  timetable token create --dynamodb --name app --scopes read,write --tables orders
`

func newTokenCommand(stdout, stderr io.Writer) command {
	var name, scopes, kinds, tables string
	var sites listFlag
	var dynamo bool
	return &clientCommand{
		name: "token", usage: tokenUsage, stdout: stdout, stderr: stderr, minArgs: 1, maxArgs: 2, tokens: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&name, "name", "", "create: what the token or key is for")
			fs.StringVar(&scopes, "scopes", "read", "create: read, write and admin, comma-separated")
			fs.StringVar(&kinds, "kinds", "", "create: limit the token to these kinds, comma-separated")
			fs.Var(&sites, "site", "create: limit the token to this web-analytics site (repeat for more)")
			fs.StringVar(&tables, "tables", "", "create --dynamodb: limit the access key to these tables, comma-separated")
			fs.BoolVar(&dynamo, "dynamodb", false, "an access key (id and secret) for the DynamoDB endpoint instead of an API token")
		},
		run: func(ctx context.Context, c *client, args []string) error {
			base := "/api/v1/tokens"
			if dynamo {
				base = "/api/v1/access-keys"
			}
			switch {
			case args[0] == "create" && len(args) == 1:
				if dynamo && (kinds != "" || len(sites) > 0) || !dynamo && tables != "" {
					fmt.Fprintln(stderr, "timetable token: an API token takes --kinds and --site, an access key (--dynamodb) --tables")
					return errUsage
				}
				return createToken(ctx, c, stdout, base, dynamo, name, scopes, kinds, tables, sites)
			case args[0] == "list" && len(args) == 1:
				return listTokens(ctx, c, stdout)
			case args[0] == "revoke" && len(args) == 2:
				return c.do(ctx, http.MethodDelete, base+"/"+url.PathEscape(args[1]), nil, nil, nil)
			}
			fmt.Fprint(stderr, tokenUsage)
			return errUsage
		},
	}
}

func createToken(ctx context.Context, c *client, w io.Writer, base string, dynamo bool, name, scopes, kinds, tables string, sites []string) error {
	if dynamo {
		in := map[string]any{"name": name, "scopes": splitList(scopes)}
		if tables != "" {
			in["tables"] = splitList(tables)
		}
		var k struct{ ID, Secret string }
		if err := c.sendJSON(ctx, http.MethodPost, base, in, &k); err != nil {
			return err
		}
		fmt.Fprintf(w, "access key id:     %s\nsecret access key: %s\n\nShown once. For the AWS SDKs and CLI:\n  export AWS_ACCESS_KEY_ID=%s AWS_SECRET_ACCESS_KEY=%s\n", k.ID, k.Secret, k.ID, k.Secret)
		return nil
	}
	in := map[string]any{"name": name, "scopes": splitList(scopes)}
	if kinds != "" {
		in["kinds"] = splitList(kinds)
	}
	if len(sites) > 0 {
		in["sites"] = sites
	}
	var t struct{ ID, Token string }
	if err := c.sendJSON(ctx, http.MethodPost, base, in, &t); err != nil {
		return err
	}
	fmt.Fprintf(w, "%s\n", t.Token)
	return nil
}

func listTokens(ctx context.Context, c *client, w io.Writer) error {
	var ts struct {
		Tokens []struct {
			ID, Name, Created string
			LastUsed          string `json:"last_used"`
			Scopes, Kinds     []string
			Sites             []string
		} `json:"tokens"`
	}
	if err := c.getJSON(ctx, "/api/v1/tokens", nil, &ts); err != nil {
		return err
	}
	var ks struct {
		AccessKeys []struct {
			ID, Name, Created string
			Scopes, Tables    []string
		} `json:"access_keys"`
	}
	if err := c.getJSON(ctx, "/api/v1/access-keys", nil, &ks); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSCOPES\tKINDS\tSITES\tTABLES\tCREATED\tLAST USED")
	for _, t := range ts.Tokens {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\t%s\t%s\n", t.ID, t.Name, strings.Join(t.Scopes, ","), strings.Join(t.Kinds, ","),
			strings.Join(t.Sites, ","), t.Created, t.LastUsed)
	}
	for _, k := range ks.AccessKeys {
		fmt.Fprintf(tw, "%s\t%s\tdynamodb:%s\t\t\t%s\t%s\t\n", k.ID, k.Name, strings.Join(k.Scopes, ","), strings.Join(k.Tables, ","), k.Created)
	}
	return tw.Flush()
}
