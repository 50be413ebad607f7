package rest

// The four write handlers. Each passes the stages in order, one way, as
// read does: the plan of the URL and the body (plan_write.go), the
// statement (sql_write.go), execute, and the answer (respond.go).

// insert answers POST: an INSERT from the JSON body, an upsert with
// Prefer: resolution.
func (s *Service) insert(rc *reqCtx, t *Table) (*reply, error) {
	p, err := s.planWrite(rc, t, writeInsert)
	if err != nil {
		return nil, err
	}
	st, err := insertStatement(rc, p)
	if err != nil {
		return nil, err
	}
	res, err := s.run(rc, st, p.acc)
	if err != nil {
		return nil, err
	}
	return s.respondInsert(rc, p, res)
}

// update answers PATCH on the rows the filters select.
func (s *Service) update(rc *reqCtx, t *Table) (*reply, error) {
	p, err := s.planWrite(rc, t, writeUpdate)
	if err != nil {
		return nil, err
	}
	st, err := updateStatement(rc, p)
	if err != nil {
		return nil, err
	}
	res, err := s.run(rc, st, p.acc)
	if err != nil {
		return nil, err
	}
	return s.respondChange(rc, p, res)
}

// delete answers DELETE on the rows the filters select.
func (s *Service) delete(rc *reqCtx, t *Table) (*reply, error) {
	p, err := s.planWrite(rc, t, writeDelete)
	if err != nil {
		return nil, err
	}
	st, err := deleteStatement(rc, p)
	if err != nil {
		return nil, err
	}
	res, err := s.run(rc, st, p.acc)
	if err != nil {
		return nil, err
	}
	return s.respondChange(rc, p, res)
}

// put answers PUT, a single-row upsert addressed by the full primary key.
func (s *Service) put(rc *reqCtx, t *Table) (*reply, error) {
	p, err := s.planPut(rc, t)
	if err != nil {
		return nil, err
	}
	st, err := putStatement(rc, p)
	if err != nil {
		return nil, err
	}
	res, err := s.run(rc, st, p.acc)
	if err != nil {
		return nil, err
	}
	return s.respondPut(rc, p, res)
}
