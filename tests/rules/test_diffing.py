from rules.diffing import SectionChange, Snapshot, compare_versions


def snap(number, title, body="", parent=None):
    return Snapshot(number, number.replace("−", "-"), title, body, parent)


def test_compare_versions_added_removed_changed():
    old = [snap("1", "準備"), snap("1−1", "デッキ", "50枚", 0), snap("1−2", "旧", "x", 0)]
    new = [snap("1", "準備"), snap("1−1", "デッキ", "60枚", 0), snap("1−3", "新", "y", 0)]
    changes = compare_versions(old, new)
    assert changes.added == (SectionChange("1−3", "新"),)
    assert changes.removed == (SectionChange("1−2", "旧"),)
    assert changes.changed == (SectionChange("1−1", "デッキ", ("body",)),)
    assert changes.as_dict()["changed"] == [
        {"number": "1−1", "title": "デッキ", "fields": ["body"]}
    ]


def test_repeated_numbers_are_matched_in_order():
    old = [snap("3−2−2", "A", "a"), snap("3−2−2", "B", "b")]
    new = [snap("3−2−2", "A", "a"), snap("3−2−2", "B2", "b")]
    changes = compare_versions(old, new)
    assert changes.changed == (SectionChange("3−2−2", "B2", ("title",)),)
    assert not changes.added
    assert not changes.removed


def test_unnumbered_sections_are_matched_by_title_path():
    old = [Snapshot("", "", "流れ", "", None), Snapshot("", "", "開始", "a", 0)]
    new = [Snapshot("", "", "流れ", "", None), Snapshot("", "", "開始", "b", 0)]
    assert compare_versions(old, new).changed == (SectionChange("", "開始", ("body",)),)
    assert compare_versions(old, old).is_empty
