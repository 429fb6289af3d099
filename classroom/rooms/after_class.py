"""What stays after class, as the registry offers it: a room's answers as two CSVs (answer_files.py) at any
time and on closing, and the answer sets kept after closing (kept.py), opened or deleted with the room's PIN.
RoomRegistry (base.py) is one of these."""

from classroom.rooms import clients
from classroom.rooms.answer_files import AnswerFiles, answer_files
from classroom.rooms.backend import NOT_TEACHER, RoomBackend
from classroom.rooms.codes import verify_pin
from classroom.rooms.kept import KEPT_ID, new_record
from classroom.rooms.records import KeptInfo, NotTeacher, RoomError, TeacherKey

NO_KEPT = "No kept answers have that name: they may have been deleted."


class AfterClass(RoomBackend):
    def close(self, key: TeacherKey, keep: bool = False) -> AnswerFiles:
        """Close the room for everyone; returns its answers as the two CSVs (kept.py), for a download after
        closing, with every round's answer key (the class is over). `keep`: they are also kept (until the
        teacher deletes them), opened later with the room's PIN."""
        code, digest, raw = self._teacher_raw(key)
        closed = self._wall()
        files = answer_files(code, raw.rounds, closed, closed=True)
        if keep:
            pin = self._pin_record(code, self._clock())
            if pin is None:
                raise NotTeacher(NOT_TEACHER)
            if len(files.answers) + len(files.students) > self.limits.max_kept_chars:
                raise RoomError("These answers are too many to keep: download the CSV instead.")
            # kept before closing: a refusal leaves the room open
            if not self.kept.put(new_record(code, pin, raw.rounds, files, closed)):
                raise RoomError(f"The lab already keeps {self.limits.max_kept} answer sets, its limit: delete one "
                                "first, or close without keeping (download the CSV).")
        self._teacher_result(self._close(code, digest))
        return files

    def answer_files(self, key: TeacherKey) -> AnswerFiles:
        """Every round's answers as the two CSVs (kept.py): one row per answer, and one row per seat with a
        column per round; seat tags only, the answer key of revealed rounds only (the screen is projected)."""
        code, _, raw = self._teacher_raw(key)
        return answer_files(code, raw.rounds, self._wall())

    # -- answer sets kept after closing (kept.py) --------------------------------------------
    def kept_list(self) -> tuple[KeptInfo, ...]:
        return self.kept.list()

    def _kept_with_pin(self, kept_id: str, pin: str, session, address) -> dict:
        """The kept set `kept_id`, if `pin` is its room's; tries count as PIN tries do (per client and set)."""
        session, address, now = self._session(session), clients.clean_address(address), self._clock()
        if not (isinstance(kept_id, str) and KEPT_ID.fullmatch(kept_id)):
            raise RoomError(NO_KEPT)
        L = self.limits
        who = clients.scopes(f"kept:{kept_id}", session, address, L.pin_tries_per_session, L.pin_tries_per_address)
        clients.take(self, who, L.pin_window, now, "PIN tries for these answers")
        record = self.kept.get(kept_id)
        if record is None:
            raise RoomError(NO_KEPT)
        if not verify_pin(pin, record["pin"]):
            raise RoomError("That PIN does not match the PIN of the room these answers come from.")
        return record

    def kept_files(self, kept_id: str, pin: str, session: str, address: str | None = None) -> AnswerFiles:
        record = self._kept_with_pin(kept_id, pin, session, address)
        return AnswerFiles(record["code"], float(record["closed"]), record["csv"], record.get("students"))

    def delete_kept(self, kept_id: str, pin: str, session: str, address: str | None = None) -> None:
        self._kept_with_pin(kept_id, pin, session, address)
        self.kept.delete(kept_id)
