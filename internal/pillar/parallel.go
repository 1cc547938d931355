package pillar

import "sync"

// prerenderJob names one top-level SLS of an environment.
type prerenderJob struct{ env, sls string }

type prerendered struct {
	data any
	err  error
}

// prerender renders the given SLS files concurrently with Options.Workers
// goroutines. Each result is later taken, once, by the serial merge in
// place of rendering the file again; a file listed twice renders twice, as
// in Salt, because only the first use finds its result here.
func (c *compiler) prerender(jobs []prerenderJob) {
	type task struct {
		job prerenderJob
		req *RenderRequest
	}
	var tasks []task
	seen := map[prerenderJob]bool{}
	for _, j := range jobs {
		if seen[j] {
			continue
		}
		seen[j] = true
		path, source := c.roots.getState(j.sls, j.env)
		if path == "" {
			continue
		}
		req := &RenderRequest{Path: path, Source: source, Saltenv: j.env, SLS: j.sls,
			Opts: c.opts, Grains: c.matchCtx.Grains, Pillar: c.pillar}
		tasks = append(tasks, task{j, req})
	}
	results := make([]prerendered, len(tasks))
	ch := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < c.o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				data, err := c.o.Render(tasks[i].req)
				results[i] = prerendered{data, err}
			}
		}()
	}
	for i := range tasks {
		ch <- i
	}
	close(ch)
	wg.Wait()
	c.pre = make(map[prerenderJob]*prerendered, len(tasks))
	for i, t := range tasks {
		c.pre[t.job] = &results[i]
	}
}

// renderSLS renders an SLS file, taking a parallel result when there is an
// unused one for it.
func (c *compiler) renderSLS(req *RenderRequest) (any, error) {
	if req.Defaults == nil && c.pre != nil {
		k := prerenderJob{req.Saltenv, req.SLS}
		if r, ok := c.pre[k]; ok {
			delete(c.pre, k)
			if r.err != nil {
				c.failed(req, r.err)
			}
			return r.data, r.err
		}
	}
	return c.render(req)
}
